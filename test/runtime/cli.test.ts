/**
 * The bundle on whatever Node.js runs the tests: `npm test` runs this under
 * Node 20, and .ci/run runs it again under Node 24 (npm run test:no-http),
 * where on glibc older than 2.38 no uWS addon fits. Every command but serve
 * must work without uWS there, and serve must say why it cannot start; what
 * serve does once started is in test/cli/serve.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DIST, runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const EXAMPLE_CONFIG = path.resolve(path.dirname(DIST), '..', 'examples', 'config');
const ABI = process.versions.modules;
const GLIBC = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
const PACKAGE = JSON.parse(fs.readFileSync(path.join(path.dirname(DIST), '..', 'package.json'), 'utf8')) as { version: string };
/** Which uWS build serves here, by the rule the table of docs/operations/node-versions.md states. */
const UWS =
  ABI === '115' && GLIBC && Number(GLIBC.split('.')[1]) >= 28
    ? '20.30.0-unofficial.0 (@trufflesuite/uws-js-unofficial)'
    : ['127', '137', '141'].includes(ABI) && GLIBC && Number(GLIBC.split('.')[1]) >= 38
      ? '20.57.0 (@btc-vision/uwebsockets.js)'
      : undefined;

test('--version names paywalld, this Node.js and the uWS and SQLite versions it uses', async () => {
  const result = await runCli(['--version']);
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 4, result.stdout);
  assert.equal(lines[0], `paywalld ${PACKAGE.version}`);
  assert.equal(lines[1], `Node.js ${process.version} (ABI ${ABI}, ${process.platform} ${process.arch}${GLIBC ? `, glibc ${GLIBC}` : ''})`);
  assert.equal(
    lines[2],
    UWS ? `uWebSockets.js ${UWS}` : 'uWebSockets.js none fits this runtime: serve cannot run here (see "Which Node.js" in docs/operations/node-versions.md)',
  );
  assert.match(lines[3]!, /^SQLite 3\.\d+\.\d+ \(better-sqlite3 12\.\d+\.\d+\)$/);
});

test('every command that serves no HTTP runs from a dist/ that holds no uWS addon at all', async (t) => {
  const dir = tempDir(t);
  const copy = path.join(dir, 'dist');
  fs.cpSync(path.dirname(DIST), copy, { recursive: true });
  for (const name of fs.readdirSync(copy)) if (name.startsWith('uws_')) fs.rmSync(path.join(copy, name));
  const script = path.join(copy, 'paywalld.js');
  const db = path.join(dir, 'no-uws.db');
  const cli = async (...args: string[]) => {
    const result = await runCli(args, { script, cwd: dir });
    assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };

  await cli('migrate', '--db', db);
  const created = JSON.parse(await cli('projects', 'create', 'no-uws', '--json', '--db', db));
  assert.match(await cli('projects', 'list', '--db', db), /no-uws/);
  const key = JSON.parse(await cli('keys', 'create', '--project', created.project.id, '--scope', 'sdk', '--json', '--db', db));
  assert.match(await cli('keys', 'list', '--project', created.project.id, '--db', db), new RegExp(key.prefix));
  await cli('keys', 'revoke', key.id, '--db', db);
  await cli('backup', path.join(dir, 'copy.db'), '--db', db);
  assert.ok(fs.statSync(path.join(dir, 'copy.db')).size > 0);
  // Paywalls as code (the repository's example) and the fallback bundle, straight on the database.
  const project = ['--db', db, '--project', created.project.id];
  await cli('validate', EXAMPLE_CONFIG);
  assert.match(await cli('plan', EXAMPLE_CONFIG, '--publish', ...project), /onboarding/);
  const config = path.join(dir, 'example-config');
  fs.cpSync(EXAMPLE_CONFIG, config, { recursive: true });
  await cli('apply', config, '--publish', ...project);
  await cli('export', path.join(dir, 'config'), ...project);
  assert.ok(fs.existsSync(path.join(dir, 'config', 'paywalls', 'onboarding.json')));
  await cli('fallback', '--out', path.join(dir, 'fallback.json'), ...project);
  assert.ok(JSON.parse(fs.readFileSync(path.join(dir, 'fallback.json'), 'utf8')));
  assert.match(await cli('--version'), /^paywalld /);
  for (const command of ['serve', 'projects', 'keys', 'backup', 'migrate', 'migrate-to', 'validate', 'export', 'plan', 'apply', 'fallback']) {
    assert.match(await cli(command, '--help'), new RegExp(`Usage:\\n  paywalld ${command}`), command);
  }
  assert.match(await cli('--help'), /Commands:\n {2}serve/);

  // serve alone needs the addon, and says which file is missing and how to build it, without a stack trace.
  const served = await runCli(['serve', '--port', '0', '--db', db], { script, cwd: dir });
  assert.equal(served.status, 1);
  assert.equal(served.stdout, '');
  assert.doesNotMatch(served.stderr, /^\s+at /m);
  if (UWS) {
    const major = process.versions.node.split('.')[0];
    assert.equal(
      served.stderr,
      `paywalld serve: ${copy} has no uWebSockets.js addon for Node.js ${process.version} (uws_${process.platform}_${process.arch}_${ABI}.node).\n` +
        `Build it for this Node.js: run \`node runtimes.mjs ${major}\`, then \`npm run build\`, in the source tree.\n` +
        'See "Which Node.js" in docs/operations/node-versions.md.\n',
    );
  } else {
    assert.match(served.stderr, /^paywalld serve: cannot serve HTTP on /);
  }
});

test('projects create --json prints exactly the project and its two keys', async (t) => {
  const db = path.join(tempDir(t), 'cli.db');
  const result = await runCli(['projects', 'create', 'Acme Studio', '--json', '--db', db]);
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const created = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(created), ['project', 'keys']);
  assert.deepEqual(Object.keys(created.project), ['id', 'name']);
  assert.equal(created.project.name, 'Acme Studio');
  assert.match(created.keys.sdk, /^pwk_sdk_[0-9A-Za-z]{32}$/);
  assert.match(created.keys.secret, /^pwk_secret_[0-9A-Za-z]{32}$/);

  const list = JSON.parse((await runCli(['projects', 'list', '--json', '--db', db])).stdout);
  assert.deepEqual(
    list.projects.map((p: { id: string }) => p.id),
    [created.project.id],
  );
});

test('keys create, list and revoke', async (t) => {
  const db = path.join(tempDir(t), 'cli.db');
  const { project } = JSON.parse((await runCli(['projects', 'create', 'p', '--json', '--db', db])).stdout);
  const created = JSON.parse((await runCli(['keys', 'create', '--project', project.id, '--scope', 'sdk', '--json', '--db', db])).stdout);
  assert.deepEqual(Object.keys(created), ['id', 'key', 'scope', 'prefix']);
  assert.equal(created.scope, 'sdk');
  assert.ok(created.key.startsWith(created.prefix));

  const revoke = await runCli(['keys', 'revoke', created.id, '--json', '--db', db]);
  assert.equal(revoke.status, 0, revoke.stderr);
  const listed = JSON.parse((await runCli(['keys', 'list', '--project', project.id, '--json', '--db', db])).stdout).keys;
  assert.equal(listed.length, 3);
  assert.notEqual(listed.find((k: { id: string }) => k.id === created.id).revoked_at, null);
  assert.ok(listed.every((k: Record<string, unknown>) => !('hash' in k) && !('key' in k)));
  const text = (await runCli(['keys', 'list', '--project', project.id, '--db', db])).stdout;
  assert.match(text, new RegExp(`${created.id}\\s+sdk\\s+${created.prefix}….*revoked`));
});

test('wrong usage exits 2 with a pointer to --help; failures exit 1', async (t) => {
  const db = path.join(tempDir(t), 'cli.db');
  assert.equal((await runCli(['migrate', '--db', db])).status, 0);
  const cases: [string[], number, RegExp][] = [
    [[], 2, /Usage: paywalld <command>/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
    [['projects'], 2, /needs a subcommand/],
    [['projects', 'create'], 2, /exactly one NAME/],
    [['projects', 'create', 'a', '--colour'], 2, /Unknown option '--colour'/],
    [['keys', 'create', '--project', 'prj_x', '--scope', 'admin'], 2, /--scope sdk or --scope secret/],
    [['keys', 'list'], 2, /needs --project ID/],
    [['serve', '--port', 'http'], 2, /--port must be an integer/],
    [['keys', 'create', '--project', 'prj_missing', '--scope', 'sdk'], 1, /no project with id prj_missing/],
    [['keys', 'revoke', 'key_missing'], 1, /no API key with that id/],
    [['projects', 'create', ' padded '], 1, /project name/],
  ];
  for (const [args, status, message] of cases) {
    const result = await runCli([...args, '--db', db]);
    assert.equal(result.status, status, args.join(' '));
    assert.match(result.stderr + result.stdout, message, args.join(' '));
  }
});

test('every command but serve, migrate and projects create refuses a --db that does not exist, and creates nothing', async (t) => {
  const dir = tempDir(t);
  const missing = path.join(dir, 'typo.db');
  const commands = [
    ['projects', 'list'],
    ['keys', 'list', '--project', 'prj_x'],
    ['keys', 'create', '--project', 'prj_x', '--scope', 'sdk'],
    ['keys', 'revoke', 'key_x'],
    ['backup', path.join(dir, 'copy.db')],
    ['export', path.join(dir, 'exported')],
    ['plan', EXAMPLE_CONFIG],
    ['apply', EXAMPLE_CONFIG],
    ['fallback', '--out', path.join(dir, 'fallback.json')],
  ];
  for (const args of commands) {
    const result = await runCli([...args, '--db', missing]);
    assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.ok(result.stderr.includes(`database ${missing} does not exist`), `${args.join(' ')}: ${result.stderr}`);
    assert.deepEqual(fs.readdirSync(dir), [], `${args.join(' ')} created nothing`);
  }
  // PAYWALLD_DB is checked the same way.
  assert.equal((await runCli(['projects', 'list'], { env: { PAYWALLD_DB: missing } })).status, 2);
  // The commands that start a database still may.
  assert.equal((await runCli(['projects', 'create', 'first', '--db', missing])).status, 0);
  assert.equal((await runCli(['projects', 'list', '--db', missing])).status, 0);
  assert.equal((await runCli(['migrate', '--db', path.join(dir, 'other.db')])).status, 0);
});

test('PAYWALLD_DB chooses the database when --db is absent', async (t) => {
  const db = path.join(tempDir(t), 'env.db');
  await runCli(['projects', 'create', 'from-env', '--json'], { env: { PAYWALLD_DB: db } });
  assert.match((await runCli(['projects', 'list', '--db', db])).stdout, /from-env/);
});

test('serve starts where a uWS build fits, and otherwise exits 1 with the message that says what works', async (t) => {
  const db = path.join(tempDir(t), 'serve.db');
  if (UWS) {
    const server = await spawnServe(t, ['--db', db]);
    assert.equal((await fetch(`${server.url}/healthz`)).headers.get('uwebsockets'), '20');
    assert.equal(await server.stop(), 0);
    return;
  }
  const result = await runCli(['serve', '--port', '0', '--db', db]);
  assert.equal(result.status, 1);
  assert.equal(result.stdout, '');
  assert.equal(
    result.stderr,
    `paywalld serve: cannot serve HTTP on Node.js ${process.version} with ${GLIBC ? `glibc ${GLIBC}` : 'a Linux without glibc (musl?)'}: no uWebSockets.js addon fits (ABI ${ABI}, ${process.platform} ${process.arch}).\n` +
      'What works: Node.js 20 on glibc 2.28+ (Debian 10, Ubuntu 20.04, RHEL 8 and newer); Node.js 22, 24 or 25 on glibc 2.38+ (Debian 13, Ubuntu 24.04, Fedora 39, RHEL 10 and newer); or the single executable (npm run build:exe), which carries its own Node.js.\n' +
      'Every command that serves no HTTP (projects, keys, backup, migrate, ...) works on this runtime.\n' +
      'See "Which Node.js" in docs/operations/node-versions.md.\n',
  );
  // It stops before touching the database.
  assert.equal(fs.existsSync(db), false);
});
