import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { DIST } from '../helpers/cli.ts';
import { exported, ingest, numbered, sendEvents } from '../helpers/events.ts';
import { problem } from '../helpers/problem.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

/**
 * The server runs on a 6 MiB tmpfs of its own, mounted in a private mount
 * namespace (`unshare`), so no root is needed and nothing outside is
 * touched. The shell that owns the namespace fills and frees the disk when
 * the test says so on its stdin.
 */
const SCRIPT = `
set -eu
mount -t tmpfs -o size=6m tmpfs "$MNT"
node "$DIST" serve --port 0 --db "$MNT/paywalld.db" --rate-limit-sdk 0 --rate-limit-api 0 > "$LOG" 2>&1 &
server=$!
while read -r command; do
  case "$command" in
    fill) dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null || true; echo filled ;;
    free) rm -f "$MNT/filler"; echo freed ;;
    stop) kill -TERM "$server"; wait "$server"; echo "stopped $?" ;;
  esac
done
`;

test('a full disk answers 503 with Retry-After, loses nothing acknowledged, and recovers once space is back', async (t) => {
  const dir = tempDir(t);
  const mnt = path.join(dir, 'mnt');
  const log = path.join(dir, 'server.log');
  fs.mkdirSync(mnt);
  const shell = spawn('unshare', ['--user', '--map-root-user', '--mount', 'bash', '-c', SCRIPT], {
    env: { ...process.env, MNT: mnt, DIST, LOG: log },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  t.after(() => shell.kill('SIGKILL'));
  const replies = createInterface({ input: shell.stdout! })[Symbol.asyncIterator]();
  const command = async (word: string) => {
    shell.stdin!.write(`${word}\n`);
    return (await replies.next()).value as string;
  };

  const output = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '');
  await until(() => /"msg":"listening"/.test(output()));
  const port = Number(/"port":(\d+)/.exec(output())![1]);
  const secret = /secret key: (pwk_secret_\w+)/.exec(output())![1]!;
  const url = `http://127.0.0.1:${port}`;

  const before = numbered('before-', 50);
  assert.equal((await ingest(url, secret, { events: before })).accepted, 50);

  assert.equal(await command('fill'), 'filled');
  const during = numbered('during-', 200, { properties: { pad: 'x'.repeat(3000) } });
  const refused = await sendEvents(url, { events: during }, { 'content-type': 'application/json', authorization: `Bearer ${secret}` });
  // The same answer as every other write on a full disk: the database, not the batch, is at fault.
  await problem(refused, 503, 'database_unavailable');
  assert.equal(refused.headers.get('retry-after'), '1');
  // Reads keep working while writes cannot.
  assert.equal((await fetch(`${url}/healthz`)).status, 200);

  assert.equal(await command('free'), 'freed');
  // The client retries the same batch with the same ids: all of it is new, nothing of it was half-stored.
  const retried = await ingest(url, secret, { events: during });
  assert.deepEqual([retried.accepted, retried.duplicates], [200, 0]);
  assert.deepEqual((await ingest(url, secret, { events: before })).duplicates, 50);

  const ids = (await exported(url, secret)).map((e) => e.id as string);
  assert.equal(ids.length, 250);
  assert.equal(new Set(ids).size, 250);
  assert.equal(await command('stop'), 'stopped 0');
});
