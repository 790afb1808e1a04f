/**
 * The tests' PostgreSQL (test/helpers/postgres.ts) goes away with the test
 * process that started it, however that process ends: a failed test, or a
 * SIGKILL in the middle of one. Otherwise every run would leave a server
 * and a directory behind.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type TestContext, test } from 'node:test';
import { POSTGRES } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { until } from '../helpers/until.ts';

const HELPER = path.resolve(import.meta.dirname, '..', 'helpers', 'postgres.ts');

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A test process that starts the cluster, creates a database, prints where it is, then runs `end`. */
async function clusterProcess(t: TestContext, end: string): Promise<{ dir: string; port: number; exited: Promise<number | null> }> {
  const script = `
    import { test } from 'node:test';
    import { postgresDatabase } from ${JSON.stringify(HELPER)};
    test('uses PostgreSQL', async (t) => {
      const { cluster } = await postgresDatabase(t);
      console.log(JSON.stringify({ dir: cluster.dir, port: cluster.port }));
      ${end}
    });
  `;
  // Without NODE_TEST_CONTEXT, which would make the child report to this runner instead of printing.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env });
  t.after(() => child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.startsWith('{')) return { ...(JSON.parse(line) as { dir: string; port: number }), exited };
  }
  throw new Error('the child printed no cluster');
}

test('a failed test: the cluster stops and its directory is removed when the process exits', needs(POSTGRES), async (t) => {
  const { dir, port, exited } = await clusterProcess(t, "throw new Error('this test fails');");
  assert.notEqual(await exited, 0);
  await until(() => !fs.existsSync(dir), `${dir} to be removed`, 30_000);
  assert.equal(await listening(port), false);
});

test('SIGKILL during a test: the cluster stops and its directory is removed all the same', needs(POSTGRES), async (t) => {
  const { dir, port, exited } = await clusterProcess(t, "process.kill(process.pid, 'SIGKILL');");
  assert.equal(await exited, null);
  await until(() => !fs.existsSync(dir), `${dir} to be removed`, 30_000);
  assert.equal(await listening(port), false);
});
