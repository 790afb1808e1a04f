/**
 * The driver defect that src/db/postgres/driver-defects.ts lets pass,
 * provoked for real: a transaction whose backend is terminated sends its
 * ROLLBACK on the closed connection, and the driver throws from a timer.
 * Each run is a child process, since the throw is process-wide. So is the
 * guard for a rejection the driver leaves unhandled.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

const GUARD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/postgres/driver-defects.ts');
const POOL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/postgres/connection.ts');

/** Runs transactions that terminate their own backend, with or without the guard; prints how each failed. */
function provoke(url: string, guarded: boolean) {
  const script = `
    const { openPool } = await import(${JSON.stringify(POOL)});
    ${guarded ? `(await import(${JSON.stringify(GUARD)})).letDriverDefectsPass();` : ''}
    for (let i = 0; i < 5; i++) {
      const sql = openPool(process.env.URL, { size: 1 });
      await sql.begin((tx) => tx\`SELECT pg_terminate_backend(pg_backend_pid())\`).catch((error) => console.log('failed', error.code));
      await new Promise((resolve) => setImmediate(resolve));
      await sql.end({ timeout: 1 }).catch(() => {});
    }
    console.log('still running');`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, URL: url }, encoding: 'utf8' });
}

test('the driver throws from a timer when a transaction loses its connection: without the guard the process ends', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const run = provoke(url, false);
  // When this fails, the driver guards the write now: delete driver-defects.ts and its two callers.
  assert.notEqual(run.status, 0, run.stdout);
  assert.match(run.stderr, /Cannot read properties of null \(reading 'write'\)/);
  assert.doesNotMatch(run.stdout, /still running/);
});

test('with the guard the process goes on, and each transaction failed with CONNECTION_CLOSED', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const run = provoke(url, true);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.stdout.trim().split('\n'), [...Array(5).fill('failed CONNECTION_CLOSED'), 'still running']);
});

/** A rejection nobody handles, as the driver leaves one when a new connection is cut while it fetches the array types. */
function unhandled(reason: string) {
  const script = `
    (await import(${JSON.stringify(GUARD)})).letDriverDefectsPass();
    Promise.reject(${reason});
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log('still running');`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
}

test("with the guard, a connection failure nobody handled (the driver's type fetch) lets the process go on; any other rejection ends it", () => {
  const outage = unhandled(`Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' })`);
  assert.equal(outage.status, 0, outage.stderr);
  assert.equal(outage.stdout.trim(), 'still running');
  const bug = unhandled(`new TypeError('a bug')`);
  assert.notEqual(bug.status, 0);
  assert.match(bug.stderr, /a bug/);
  assert.doesNotMatch(bug.stdout, /still running/);
});
