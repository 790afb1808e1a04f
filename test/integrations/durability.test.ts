/**
 * SIGKILL while store notifications and purchase records arrive, against the
 * built server in a child process: every one acknowledged (answered 200) is
 * on disk exactly once after the kill, and a redelivery after the restart is
 * a duplicate.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { spawnServe } from '../helpers/cli.ts';
import { configured } from '../helpers/hooks.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const SECRET = 'whsec_durability_test_secret';
const SENDERS = 4;

function stripeDelivery(id: string): { body: string; signature: string } {
  const body = JSON.stringify({
    id,
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: `cs_${id}`, client_reference_id: `user-${id}`, mode: 'payment', amount_total: 499, currency: 'eur' } },
  });
  const t = Math.floor(Date.now() / 1000);
  return { body, signature: `t=${t},v1=${crypto.createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}` };
}

function storedIds(db: string): Map<string, number> {
  const conn = openDatabase(db, { mustExist: true });
  try {
    const rows = conn.prepare('SELECT source, purchase_id AS id, count(*) AS n FROM purchases GROUP BY source, purchase_id').all() as {
      source: string;
      id: string;
      n: number;
    }[];
    return new Map(rows.map((row) => [`${row.source}:${row.id}`, row.n]));
  } finally {
    conn.close();
  }
}

test('SIGKILL during webhook and purchase ingestion loses nothing acknowledged', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'paywalld.db');
  const keysFile = path.join(dir, 'keys.json');
  const first = await spawnServe(t, [
    '--db',
    db,
    '--keys-file',
    keysFile,
    '--rate-limit-api',
    '0',
    '--rate-limit-sdk',
    '0',
    '--rate-limit-hooks',
    '0',
    '--rate-limit-hooks-project',
    '0',
  ]);
  const { project, keys } = JSON.parse(fs.readFileSync(keysFile, 'utf8')) as { project: { id: string }; keys: { secret: string } };
  await configured(first.url, keys.secret, 'stripe', { signing_secret: SECRET });

  const acknowledged = new Set<string>();
  let answered = 0;
  let killed = false;
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      for (let n = 0; !killed; n++) {
        const id = `s${sender}-n${n}`;
        try {
          if (n % 2 === 0) {
            const { body, signature } = stripeDelivery(`evt_${id}`);
            const response = await fetch(`${first.url}/hooks/stripe/${project.id}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'stripe-signature': signature },
              body,
            });
            if (response.status === 200) acknowledged.add(`stripe:evt_${id}`);
            await response.arrayBuffer();
          } else {
            const purchase = { id, user_id: `user-${id}`, type: 'renewal', ts: Date.now(), product_id: 'pro', revenue: 1.5, currency: 'USD' };
            const response = await fetch(`${first.url}/api/purchases`, {
              method: 'POST',
              headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
              body: JSON.stringify({ purchases: [purchase] }),
            });
            if (response.status === 200 && ((await response.json()) as { accepted: number }).accepted === 1) acknowledged.add(`api:${id}`);
          }
        } catch {
          // No answer: the process died with this request in flight; it is not acknowledged.
        }
        if (++answered === 200 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    }),
  );
  await new Promise((resolve) => (first.child.exitCode === null && first.child.signalCode === null ? first.child.once('exit', resolve) : resolve(null)));
  assert.ok(acknowledged.size >= 100, `only ${acknowledged.size} acknowledged before the kill`);

  const stored = storedIds(db);
  for (const key of acknowledged) assert.equal(stored.get(key), 1, `acknowledged ${key}`);
  for (const count of stored.values()) assert.equal(count, 1);

  // A store redelivering after the restart meets its record: stored once.
  const second = await spawnServe(t, ['--db', db, '--rate-limit-api', '0']);
  const again = [...acknowledged].find((key) => key.startsWith('stripe:'))!.slice('stripe:'.length);
  const { body, signature } = stripeDelivery(again);
  const response = await fetch(`${second.url}/hooks/stripe/${project.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body,
  });
  assert.deepEqual(await response.json(), { outcome: 'duplicate', stored: 0 });
  assert.equal(await second.stop('SIGTERM'), 0);
});
