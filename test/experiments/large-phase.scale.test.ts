/**
 * Results for a phase of 10⁷ exposed users through the real server under
 * `npm run test:scale`, of 10⁵ in `npm test` (helpers/scale.ts;
 * PAYWALLD_TEST_EXPOSED_USERS for another size). The events are written
 * straight into the stopped server's database by one INSERT … SELECT over a
 * generated series (HTTP would take far longer), and the restarted server
 * rebuilds its derived state from them with its own code, as after any
 * restart without a checkpoint; its results are then checked to the exact
 * count and to the statistics computed from those counts.
 *
 * What 10⁷ costs (bench/notes/experiment-statistics.md, "10⁷ exposed users through the server"):
 * 125–132 s of CPU (up to 280 s on a machine loaded many times over), most
 * of it the server's rebuild; 2¾ minutes on the shared 2-core box at load
 * average 2–5, 11–17 at 9–13; 1.2 GB of disk in a temporary directory and
 * 1.15–1.2 GB of RSS at its peak. Each stage's time is printed as a diagnostic.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chanceToBeat } from '../../src/experiments/bayes.ts';
import { NO_ADJUSTMENT, pooledArms, rateMoments } from '../../src/experiments/cuped.ts';
import { compareArms } from '../../src/experiments/effects.ts';
import { openTestDb } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { metric } from '../helpers/metrics.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { scaled } from '../helpers/scale.ts';
import { bearer, restartServer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const USERS = Number(process.env.PAYWALLD_TEST_EXPOSED_USERS ?? scaled(100_000, 10_000_000));

// A scale test of the SQLite writer's rebuild (it writes the rows into the file with SQL); PostgreSQL's rebuild is measured by bench/postgres-events.ts.
test(`results for ${USERS.toLocaleString('en')} exposed users: exact counts and finite figures`, needs(SQLITE_BACKEND), async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t);
  const call = (base: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(keys.secret) } });
  const doc = {
    name: 'Big',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 1 },
    ],
  };
  assert.equal((await call(url, '/api/paywalls/big', { method: 'PUT', body: JSON.stringify(doc) })).status, 201);
  assert.equal((await call(url, '/api/paywalls/big/publish', { method: 'POST', body: '' })).status, 200);
  const phase = ((await (await call(url, '/api/paywalls/big/phases')).json()) as Json).phases[0];
  const start = Date.parse(phase.started_at);
  await server.stop();

  const db = openTestDb(t, dbPath);
  const projectId = (db.prepare('SELECT project_id FROM paywalls WHERE id = ?').pluck().get('big') as string) ?? '';
  // User i sees variant a (even) or b (odd), 4 users a millisecond in seq order (as events arrive: roughly in time order);
  // every 20th user of a and every 19th of b buys once, a minute later.
  let stage = performance.now();
  const lap = (what: string) => {
    const now = performance.now();
    t.diagnostic(`${what}: ${((now - stage) / 1000).toFixed(1)} s`);
    stage = now;
  };
  db.exec('PRAGMA synchronous = OFF');
  db.prepare(
    `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, user_id, variant_id)
     WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     SELECT ?, 'big', 'screen_impression', ? + i / 4, ? + i / 4, ?, 'u' || i, iif(i % 2 = 0, 'a', 'b') FROM n`,
  ).run(USERS, projectId, start + 1000, start + 1000, start + 1000);
  db.prepare(
    `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, user_id, revenue, currency)
     WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     SELECT ?, 'big', 'purchase_complete', ? + i / 4 + 60000, ? + i / 4 + 60000, ?, 'u' || i, 1e9, 'USD' FROM n
     WHERE (i % 2 = 0 AND i % 20 = 0) OR (i % 2 = 1 AND i % 19 = 0)`,
  ).run(USERS, projectId, start + 1000, start + 1000, start + 1000);
  // Without a checkpoint the server rebuilds its derived state in bulk, faster than replaying 10⁷ events one by one.
  db.exec('DELETE FROM event_checkpoint');
  db.close();
  lap(`${USERS.toLocaleString('en')} impressions and their purchases inserted`);

  const again = await restartServer(t, dbPath);
  await until(async () => (await metric(again, keys.secret, 'paywalld_event_stats_ready')) === 1, 'statistics ready after the rebuild', 1_200_000, 500);
  lap('server restarted, derived state rebuilt');
  const response = await call(again, '/api/paywalls/big/results');
  assert.equal(response.status, 200);
  const body = (await response.json()) as Json;
  lap('first results answered');
  const na = USERS / 2;
  const nb = USERS / 2;
  let ca = 0;
  let cb = 0;
  for (let i = 0; i < USERS; i++) {
    if (i % 2 === 0 && i % 20 === 0) ca++;
    if (i % 2 === 1 && i % 19 === 0) cb++;
  }
  const [a, b] = body.variants;
  assert.deepEqual([a.exposed_users, a.conversions, b.exposed_users, b.conversions], [na, ca, nb, cb]);
  // The test now; the sequential p-value is the running minimum over the days, never above it.
  const expected = compareArms(...pooledArms(rateMoments(cb, nb), rateMoments(ca, na), NO_ADJUSTMENT), 'sequential')!;
  assert.ok(Math.abs(b.uplift.relative - expected.relative!) < 1e-12);
  assert.ok(b.uplift.p_value <= expected.p_value + 1e-12);
  assert.ok(Math.abs(b.chance_to_beat_control - chanceToBeat(cb, nb, ca, na)) < 1e-12);
  assert.ok(Math.abs(a.chance_to_be_best + b.chance_to_be_best - 1) < 1e-12);
  assert.equal(b.revenue[0].total, cb * 1e9);
  assert.ok(Number.isFinite(b.revenue[0].difference.ci95[1]));
  assert.equal(body.srm.ok, true);
});
