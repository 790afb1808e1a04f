/**
 * Identify's links are written by the event writer thread, never on the
 * request thread (issue 31, finding 8: every identify fsynced on it, and a
 * flood of them slowed every resolve), and each answer comes once its link
 * is on disk. Counted with strace on the built server: fsyncs of the WAL by
 * the main thread (its thread id is the process id) and by any thread.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { DIST } from '../helpers/cli.ts';
import { needs, SQLITE_BACKEND, STRACE } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

/** The built server, copied: a build running meanwhile cannot swap it under the test. */
function distCopy(t: TestContext): { script: string; db: string } {
  assert.ok(fs.existsSync(path.join(path.dirname(DIST), 'events-writer.js')), 'run `node build.mjs` first (npm test does)');
  const dir = tempDir(t);
  fs.cpSync(path.dirname(DIST), path.join(dir, 'dist'), { recursive: true });
  return { script: path.join(dir, 'dist', 'paywalld.js'), db: path.join(dir, 'paywalld.db') };
}

test('identify commits on the writer thread, one fsync per group, and answers once the link is on disk', needs(STRACE, SQLITE_BACKEND), async (t) => {
  const { script, db } = distCopy(t);
  const trace = path.join(path.dirname(db), 'fsync.trace');
  const child = spawn(
    'strace',
    ['-f', '-qq', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, script, 'serve', '--port', '0', '--db', db, '--rate-limit-sdk', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let server: number | undefined;
  t.after(() => {
    child.kill('SIGKILL');
    if (server !== undefined && child.exitCode === null) process.kill(server, 'SIGKILL');
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await until(() => /"msg":"listening"/.test(output), 'the server to listen', 30_000);
  const url = `http://127.0.0.1:${/"port":(\d+)/.exec(output)![1]}`;
  const sdk = /sdk key:\s+(pwk_sdk_\S+)/.exec(output)![1]!;
  // The server is strace's child; strace exits with the server's exit code.
  server = Number(execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).trim());
  /** WAL fsyncs so far, of every thread and of the main thread. */
  const walSyncs = () => {
    const lines = fs.readFileSync(trace, 'utf8').match(/^\d+\s+f(data)?sync\(\d+<[^>]*paywalld\.db-wal>\)\s+= 0$/gm) ?? [];
    return { all: lines.length, main: lines.filter((line) => line.startsWith(`${server} `)).length };
  };
  const identify = async (anonymous: string, user: string) => {
    const response = await fetch(`${url}/api/sdk/identify`, {
      method: 'POST',
      headers: { ...bearer(sdk), 'content-type': 'application/json' },
      body: JSON.stringify({ anonymous_id: anonymous, user_id: user }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.equal(JSON.parse(text).linked, true);
  };

  // The key's first use is recorded on the request thread (once a minute per key): let that
  // write happen before counting, so that what is counted is identify's alone.
  const started = walSyncs().main;
  await identify('warm-up-device', 'warm-up-user');
  await until(() => walSyncs().main > started, 'the sdk key use to be recorded', 10_000);
  const before = walSyncs();
  const ONE_BY_ONE = 20;
  // One after the other: each is its own group, answered only once committed.
  for (let n = 0; n < ONE_BY_ONE; n++) await identify(`device-${n}`, `user-${n}`);
  const sequential = walSyncs();
  assert.ok(sequential.all - before.all >= ONE_BY_ONE, `${sequential.all - before.all} fsyncs of the WAL for ${ONE_BY_ONE} acknowledged links`);
  // A flood at once: whatever arrived while a group committed goes in the next one.
  await Promise.all(Array.from({ length: 100 }, (_, n) => identify(`phone-${n}`, `member-${n}`)));
  const flood = walSyncs();
  assert.equal(flood.main - before.main, 0, 'the request thread fsyncs nothing for identify');

  process.kill(server, 'SIGTERM');
  assert.equal(await exited, 0);
});
