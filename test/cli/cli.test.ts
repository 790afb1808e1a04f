// The commands that serve no HTTP, which run on every Node.js paywalld supports
// (npm run test:no-http); the ones that start a server are in serve.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { EXAMPLE } from '../helpers/config-dir.ts';
import { tempDir } from '../helpers/temp.ts';

test('projects create --json prints exactly the project and its two keys', (t) => {
  const db = path.join(tempDir(t), 'cli.db');
  const result = runCli(['projects', 'create', 'Acme Studio', '--json', '--db', db]);
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const created = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(created), ['project', 'keys']);
  assert.deepEqual(Object.keys(created.project), ['id', 'name']);
  assert.equal(created.project.name, 'Acme Studio');
  assert.match(created.keys.sdk, /^pwk_sdk_[0-9A-Za-z]{32}$/);
  assert.match(created.keys.secret, /^pwk_secret_[0-9A-Za-z]{32}$/);

  const list = JSON.parse(runCli(['projects', 'list', '--json', '--db', db]).stdout);
  assert.deepEqual(
    list.projects.map((p: { id: string }) => p.id),
    [created.project.id],
  );
});

test('keys create, list and revoke', (t) => {
  const db = path.join(tempDir(t), 'cli.db');
  const { project } = JSON.parse(runCli(['projects', 'create', 'p', '--json', '--db', db]).stdout);
  const created = JSON.parse(runCli(['keys', 'create', '--project', project.id, '--scope', 'sdk', '--json', '--db', db]).stdout);
  assert.deepEqual(Object.keys(created), ['id', 'key', 'scope', 'prefix']);
  assert.equal(created.scope, 'sdk');
  assert.ok(created.key.startsWith(created.prefix));

  const revoke = runCli(['keys', 'revoke', created.id, '--json', '--db', db]);
  assert.equal(revoke.status, 0, revoke.stderr);
  const listed = JSON.parse(runCli(['keys', 'list', '--project', project.id, '--json', '--db', db]).stdout).keys;
  assert.equal(listed.length, 3);
  assert.notEqual(listed.find((k: { id: string }) => k.id === created.id).revoked_at, null);
  assert.ok(listed.every((k: Record<string, unknown>) => !('hash' in k) && !('key' in k)));
  const text = runCli(['keys', 'list', '--project', project.id, '--db', db]).stdout;
  assert.match(text, new RegExp(`${created.id}\\s+sdk\\s+${created.prefix}….*revoked`));
});

test('wrong usage exits 2 with a pointer to --help; failures exit 1', (t) => {
  const db = path.join(tempDir(t), 'cli.db');
  assert.equal(runCli(['migrate', '--db', db]).status, 0);
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
    const result = runCli([...args, '--db', db]);
    assert.equal(result.status, status, args.join(' '));
    assert.match(result.stderr + result.stdout, message, args.join(' '));
  }
});

test('every command but serve, migrate and projects create refuses a --db that does not exist, and creates nothing', (t) => {
  const dir = tempDir(t);
  const missing = path.join(dir, 'typo.db');
  const commands = [
    ['projects', 'list'],
    ['keys', 'list', '--project', 'prj_x'],
    ['keys', 'create', '--project', 'prj_x', '--scope', 'sdk'],
    ['keys', 'revoke', 'key_x'],
    ['backup', path.join(dir, 'copy.db')],
    ['export', path.join(dir, 'exported')],
    ['plan', EXAMPLE],
    ['apply', EXAMPLE],
    ['fallback', '--out', path.join(dir, 'fallback.json')],
  ];
  for (const args of commands) {
    const result = runCli([...args, '--db', missing]);
    assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.ok(result.stderr.includes(`database ${missing} does not exist`), `${args.join(' ')}: ${result.stderr}`);
    assert.deepEqual(fs.readdirSync(dir), [], `${args.join(' ')} created nothing`);
  }
  // PAYWALLD_DB is checked the same way.
  assert.equal(runCli(['projects', 'list'], { env: { PAYWALLD_DB: missing } }).status, 2);
  // The commands that start a database still may.
  assert.equal(runCli(['projects', 'create', 'first', '--db', missing]).status, 0);
  assert.equal(runCli(['projects', 'list', '--db', missing]).status, 0);
  assert.equal(runCli(['migrate', '--db', path.join(dir, 'other.db')]).status, 0);
});

test('--help works on every command', () => {
  for (const command of ['serve', 'projects', 'keys', 'backup', 'migrate']) {
    const result = runCli([command, '--help']);
    assert.equal(result.status, 0, command);
    assert.match(result.stdout, new RegExp(`Usage:\\n  paywalld ${command}`));
  }
  assert.match(runCli(['--help']).stdout, /Commands:\n {2}serve/);
});

test('PAYWALLD_DB chooses the database when --db is absent', (t) => {
  const db = path.join(tempDir(t), 'env.db');
  runCli(['projects', 'create', 'from-env', '--json'], { env: { PAYWALLD_DB: db } });
  assert.match(runCli(['projects', 'list', '--db', db]).stdout, /from-env/);
});
