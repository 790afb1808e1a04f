/**
 * Choosing the database on the command line: --db, PAYWALLD_DB, DATABASE_URL
 * in that order, a postgres:// URL naming PostgreSQL, and its password shown
 * nowhere: not in errors, not in --help.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const SECRET = 'hunter2-s3cret';
const URL_WITH_PASSWORD = `postgres://paywalld:${SECRET}@127.0.0.1:1/paywalld?sslmode=disable&password=${SECRET}`;
/** Variables a developer's shell may hold that would change what these commands open. */
const CLEAN = { PAYWALLD_DB: '', DATABASE_URL: '' };

test('a command that takes only SQLite refuses a PostgreSQL URL from any source, exit 2, without its password', (t) => {
  const cwd = tempDir(t);
  const sources: { args: string[]; env: NodeJS.ProcessEnv }[] = [
    { args: ['--db', URL_WITH_PASSWORD], env: CLEAN },
    { args: [], env: { ...CLEAN, PAYWALLD_DB: URL_WITH_PASSWORD } },
    { args: [], env: { ...CLEAN, DATABASE_URL: URL_WITH_PASSWORD } },
  ];
  for (const { args, env } of sources) {
    for (const command of [
      ['keys', 'list', '--project', 'p'],
      ['serve', '--port', '0'],
    ]) {
      const result = runCli([...command, ...args], { cwd, env });
      assert.equal(result.status, 2, `${command.join(' ')} ${args.join(' ')}: ${result.stderr}`);
      assert.match(
        result.stderr,
        /SQLite database file only, and --db names PostgreSQL \(postgres:\/\/paywalld:\*\*\*@127\.0\.0\.1:1\/paywalld\?sslmode=disable&password=\*\*\*\)/,
      );
      assert.ok(!(result.stdout + result.stderr).includes(SECRET), result.stderr);
    }
  }
  assert.deepEqual(fs.readdirSync(cwd), [], 'no file was created for the URL');
});

test('--db wins over PAYWALLD_DB, which wins over DATABASE_URL; a URL of another scheme is refused', (t) => {
  const cwd = tempDir(t);
  const flagged = runCli(['migrate', '--db', 'flag.db'], { cwd, env: { PAYWALLD_DB: URL_WITH_PASSWORD, DATABASE_URL: URL_WITH_PASSWORD } });
  assert.equal(flagged.status, 0, flagged.stderr);
  const fromVariable = runCli(['migrate'], { cwd, env: { PAYWALLD_DB: 'variable.db', DATABASE_URL: URL_WITH_PASSWORD } });
  assert.equal(fromVariable.status, 0, fromVariable.stderr);
  const fromDatabaseUrl = runCli(['migrate'], { cwd, env: { PAYWALLD_DB: '', DATABASE_URL: 'database-url.db' } });
  assert.equal(fromDatabaseUrl.status, 0, fromDatabaseUrl.stderr);
  assert.deepEqual(
    fs
      .readdirSync(cwd)
      .filter((name) => name.endsWith('.db'))
      .sort(),
    ['database-url.db', 'flag.db', 'variable.db'],
  );

  const other = runCli(['migrate'], { cwd, env: { PAYWALLD_DB: '', DATABASE_URL: `mysql://root:${SECRET}@h/d` } });
  assert.equal(other.status, 2);
  assert.match(other.stderr, /--db mysql:\/\/root:\*\*\*@h\/d is neither a SQLite file nor a postgres:\/\//);
  assert.ok(!other.stderr.includes(SECRET));
});

test('--help never shows the database URL of the environment', (t) => {
  const cwd = tempDir(t);
  for (const command of [['serve', '--help'], ['backup', '--help'], ['keys', '--help'], ['--help']]) {
    const result = runCli(command, { cwd, env: { PAYWALLD_DB: URL_WITH_PASSWORD, DATABASE_URL: URL_WITH_PASSWORD } });
    assert.equal(result.status, 0, result.stderr);
    assert.ok(!(result.stdout + result.stderr).includes(SECRET), command.join(' '));
  }
  const help = runCli(['serve', '--help'], { cwd });
  assert.match(help.stdout, /env PAYWALLD_DB, else DATABASE_URL/);
});
