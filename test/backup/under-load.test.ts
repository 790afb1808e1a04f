/**
 * Backups of a database of more than 50 MB while events keep arriving: the
 * CLI snapshot and the scheduled ones finish, leave no temporary files, and
 * the restored snapshot holds every event acknowledged before it started.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { DIST, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

const MB = 1024 * 1024;

/** Runs `paywalld backup` as its own process without blocking this one (ingestion goes on meanwhile). */
function backupCli(target: string, db: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DIST, 'backup', target, '--db', db], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr })));
}

function fileSize(file: string): number {
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

test('snapshots of a 50 MB database finish while events keep arriving, and the restored copy holds what was acknowledged before', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'live.db');
  const backups = path.join(dir, 'backups');
  const server = await spawnServe(t, [
    '--db',
    db,
    '--rate-limit-sdk',
    '0',
    '--rate-limit-api',
    '0',
    '--backup-dir',
    backups,
    '--backup-every',
    '1s',
    '--backup-keep',
    '3',
  ]);
  const secret = /secret key: (pwk_secret_\w+)/.exec(server.output())![1]!;
  const send = async (events: object[]) => {
    const response = await fetch(`${server.url}/api/sdk/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ events }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.equal(JSON.parse(text).accepted, events.length, text);
  };

  // Ballast: about 8 KB per event until the database passes 50 MB.
  const pad = 'x'.repeat(8000);
  for (let batch = 0; fileSize(db) + fileSize(`${db}-wal`) < 52 * MB; batch++) {
    await send(
      Array.from({ length: 100 }, (_, i) => ({ id: `b-${batch}-${i}`, type: 'screen_impression', paywall_id: 'ballast', ts: Date.now(), properties: { pad } })),
    );
  }

  // Continuous ingestion, one small batch after another, each acknowledged id remembered in order.
  const acknowledged: string[] = [];
  let ingesting = true;
  const ingestion = (async () => {
    for (let batch = 0; ingesting; batch++) {
      const events = Array.from({ length: 5 }, (_, i) => ({
        id: `l-${batch}-${i}`,
        type: 'screen_impression',
        paywall_id: 'live',
        ts: Date.now(),
        user_id: `u-${i}`,
      }));
      await send(events);
      acknowledged.push(...events.map((e) => e.id));
    }
  })();
  await until(() => acknowledged.length >= 50);

  const before = [...acknowledged];
  const snapshotFile = path.join(dir, 'snapshot.db');
  const cli = await backupCli(snapshotFile, db);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /^Backed up \d+ pages to /);
  const during = acknowledged.length;

  // Scheduled snapshots too, while ingestion goes on: at least two, none failed.
  const written = () => (server.output().match(/"msg":"backup written"/g) ?? []).length;
  await until(() => written() >= 2, 'two scheduled backups', 120_000);
  ingesting = false;
  await ingestion;
  assert.ok(acknowledged.length > during, 'ingestion went on during and after the snapshot');
  assert.equal(await server.stop(), 0);
  assert.doesNotMatch(server.output(), /"msg":"backup failed"/);
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.includes('partial') || f.startsWith('snapshot.db-')),
    [],
  );
  const scheduled = fs.readdirSync(backups);
  assert.ok(scheduled.length >= 2 && scheduled.every((f) => /^paywalld-\d{8}T\d{6}\.\d{3}Z\.db$/.test(f)), scheduled.join(', '));

  // Restore: the snapshot in place of a database, opened by a server.
  const check = openDatabase(snapshotFile, { mustExist: true });
  assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
  check.close();
  const restoredDir = tempDir(t);
  const restored = path.join(restoredDir, 'paywalld.db');
  fs.copyFileSync(snapshotFile, restored);
  const again = await spawnServe(t, ['--db', restored, '--rate-limit-api', '0']);
  assert.equal((await fetch(`${again.url}/healthz`)).status, 200);
  const exported = await fetch(`${again.url}/api/events?paywallId=live`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(exported.status, 200);
  const ids = new Set(
    (await exported.text())
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).id as string),
  );
  const missing = before.filter((id) => !ids.has(id));
  assert.deepEqual(missing, [], `${missing.length} of ${before.length} acknowledged events are missing`);
  assert.equal(await again.stop(), 0);
});
