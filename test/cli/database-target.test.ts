/**
 * Choosing the database on the command line: --db, PAYWALLD_DB, DATABASE_URL
 * in that order, a postgres:// URL naming PostgreSQL, and its password shown
 * nowhere: not in errors, not in --help, not in backup's pg_dump advice
 * (which is run here against a real PostgreSQL).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { currentPostgresVersion, migratePostgres } from '../../src/db/postgres/migrate.ts';
import { postgresMigrations } from '../../src/db/postgres/migrations/index.ts';
import { runCli } from '../helpers/cli.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';

const SECRET = 'hunter2-s3cret';
const URL_WITH_PASSWORD = `postgres://paywalld:${SECRET}@127.0.0.1:1/paywalld?sslmode=disable&password=${SECRET}`;
/** Variables a developer's shell may hold that would change what these commands open. */
const CLEAN = { PAYWALLD_DB: '', DATABASE_URL: '' };

test('a PostgreSQL URL from any source reaches PostgreSQL, serve included; no output shows its password', async (t) => {
  const cwd = tempDir(t);
  const sources: { args: string[]; env: NodeJS.ProcessEnv }[] = [
    { args: ['--db', URL_WITH_PASSWORD], env: CLEAN },
    { args: [], env: { ...CLEAN, PAYWALLD_DB: URL_WITH_PASSWORD } },
    { args: [], env: { ...CLEAN, DATABASE_URL: URL_WITH_PASSWORD } },
  ];
  for (const { args, env } of sources) {
    // Nothing listens on port 1: each command tried PostgreSQL, not a file.
    const serve = await runCli(['serve', '--port', '0', ...args], { cwd, env });
    const keys = await runCli(['keys', 'list', '--project', 'p', ...args], { cwd, env });
    for (const [name, result] of [
      ['serve', serve],
      ['keys list', keys],
    ] as const) {
      assert.equal(result.status, 1, `${name} ${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /ECONNREFUSED/);
    }
    for (const result of [serve, keys]) assert.ok(!(result.stdout + result.stderr).includes(SECRET), result.stderr);
  }
  assert.deepEqual(fs.readdirSync(cwd), [], 'no file was created for the URL');
});

test('--db wins over PAYWALLD_DB, which wins over DATABASE_URL; a URL of another scheme is refused', async (t) => {
  const cwd = tempDir(t);
  const flagged = await runCli(['migrate', '--db', 'flag.db'], { cwd, env: { PAYWALLD_DB: URL_WITH_PASSWORD, DATABASE_URL: URL_WITH_PASSWORD } });
  assert.equal(flagged.status, 0, flagged.stderr);
  const fromVariable = await runCli(['migrate'], { cwd, env: { PAYWALLD_DB: 'variable.db', DATABASE_URL: URL_WITH_PASSWORD } });
  assert.equal(fromVariable.status, 0, fromVariable.stderr);
  const fromDatabaseUrl = await runCli(['migrate'], { cwd, env: { PAYWALLD_DB: '', DATABASE_URL: 'database-url.db' } });
  assert.equal(fromDatabaseUrl.status, 0, fromDatabaseUrl.stderr);
  assert.deepEqual(
    fs
      .readdirSync(cwd)
      .filter((name) => name.endsWith('.db'))
      .sort(),
    ['database-url.db', 'flag.db', 'variable.db'],
  );

  const other = await runCli(['migrate'], { cwd, env: { PAYWALLD_DB: '', DATABASE_URL: `mysql://root:${SECRET}@h/d` } });
  assert.equal(other.status, 2);
  assert.match(other.stderr, /--db mysql:\/\/root:\*\*\*@h\/d is neither a SQLite file nor a postgres:\/\//);
  assert.ok(!other.stderr.includes(SECRET));
});

test('--help never shows the database URL of the environment', async (t) => {
  const cwd = tempDir(t);
  for (const command of [['serve', '--help'], ['backup', '--help'], ['keys', '--help'], ['--help']]) {
    const result = await runCli(command, { cwd, env: { PAYWALLD_DB: URL_WITH_PASSWORD, DATABASE_URL: URL_WITH_PASSWORD } });
    assert.equal(result.status, 0, result.stderr);
    assert.ok(!(result.stdout + result.stderr).includes(SECRET), command.join(' '));
  }
  const help = await runCli(['serve', '--help'], { cwd });
  assert.match(help.stdout, /env PAYWALLD_DB, else\s+DATABASE_URL/);
});

test('backup on PostgreSQL answers exit 2 with a pg_dump command that works, the password left out', needs(POSTGRES), async (t) => {
  const { url, cluster } = await postgresDatabase(t);
  await migratePostgres(testPool(t, url));
  const cwd = tempDir(t);
  const withPassword = url.replace('postgres://postgres@', `postgres://postgres:${SECRET}@`);
  const result = await runCli(['backup', 'before-upgrade.dump', '--db', withPassword], { cwd, env: CLEAN });
  assert.equal(result.status, 2, result.stderr);
  assert.equal(result.stdout, '');
  assert.ok(!result.stderr.includes(SECRET), result.stderr);
  assert.match(result.stderr, /PostgreSQL is backed up with pg_dump or your provider's backups/);
  assert.match(result.stderr, /PGPASSWORD or ~\/\.pgpass/);
  const command = /^ {2}(pg_dump .*)$/m.exec(result.stderr)?.[1];
  assert.equal(command, `pg_dump --format=custom --file='before-upgrade.dump' 'postgres://postgres@${cluster.host}:${cluster.port}/${url.split('/').at(-1)}'`);

  // The advice, pasted into a shell with the PostgreSQL client on PATH, makes a dump pg_restore reads.
  const bin = POSTGRES.find()!;
  const run = spawnSync('bash', ['-c', command!], { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  assert.equal(run.status, 0, run.stderr);
  const listing = spawnSync(path.join(bin, 'pg_restore'), ['--list', path.join(cwd, 'before-upgrade.dump')], { encoding: 'utf8' });
  assert.equal(listing.status, 0, listing.stderr);
  for (const table of ['projects', 'api_keys', 'paywall_revisions', 'events', 'purchases']) assert.match(listing.stdout, new RegExp(`TABLE public ${table} `));
});

test(
  'migrate on PostgreSQL applies every migration, then finds it up to date; an unreachable server exits 1 without the password',
  needs(POSTGRES),
  async (t) => {
    const { url } = await postgresDatabase(t);
    const known = postgresMigrations.at(-1)!.version;
    const first = await runCli(['migrate'], { env: { PAYWALLD_DB: '', DATABASE_URL: url } });
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(first.stdout.trim().split('\n'), [...postgresMigrations.map((m) => `applied ${m.version} ${m.name}`), `schema version ${known}`]);
    assert.equal(await currentPostgresVersion(testPool(t, url)), known);
    const again = await runCli(['migrate', '--db', url], { env: CLEAN });
    assert.equal(again.stdout, `schema version ${known} (up to date)\n`);

    const unreachable = await runCli(['migrate', '--db', URL_WITH_PASSWORD], { env: CLEAN });
    assert.equal(unreachable.status, 1);
    assert.match(unreachable.stderr, /^paywalld migrate: .*ECONNREFUSED/);
    assert.ok(!unreachable.stderr.includes(SECRET));
  },
);
