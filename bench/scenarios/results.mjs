/**
 * Scenario: GET /api/paywalls/{id}/results (target: < 50 ms p50 for 1 M
 * exposed users and 10 M events) on a database loaded the way the stats
 * scenario loads its own (bench/lib/load-events.mjs: events appended straight
 * into the file, 30 days, users a tenth of the events, each user seeing one
 * variant; the derived state built by the server's own code). The loader's
 * funnel gives each user one event type, so on top every user gets one
 * impression of their variant on the first day (1 M exposed users at 10 M
 * loaded events), and every 20th user buys once after every impression,
 * with revenue in USD or EUR, so conversion and revenue are not empty. The phase of the
 * fixture's paywall is moved back to the first loaded day (it was started by
 * the seeding publish, which is now), so that every event is in it.
 *
 * Before each measured request one event is sent and committed, so the
 * writer's remembered fold is stale and every request pays the whole fold
 * (the figure of a results page polled under ingestion); the first request,
 * which also pays it, checks the counts.
 */
import path from 'node:path';
import { openSqlite } from '../lib/events.mjs';
import { PAYWALL_ID, seedFixture } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { DAYS, loadEventsInWorker, rebuildDerived } from '../lib/load-events.mjs';
import { createDatabase, startPaywalld } from '../lib/paywalld.mjs';
import { rss } from '../lib/processes.mjs';
import { median, percentile } from '../lib/rounds.mjs';
import { assertAlive, measuring, row, stopAll, waitFor } from '../lib/scenario.mjs';
import { ScenarioError } from '../lib/wrk.mjs';

const DAY_MS = 24 * 60 * 60 * 1000;
const USERS_PER_EVENT = 0.1;
const BUYER_EVERY = 20;

/** The loader's variants (bench/lib/events.mjs): user n sees VARIANTS[n % 2]. */
const VARIANTS = ['control', 'annual_first'];

/** One impression per user, one purchase per BUYER_EVERY-th user after every loaded event, and the phase moved back to the first loaded day. */
export function addPurchases({ file, addon, projectId, users, firstDay, lastDay }) {
  const db = openSqlite(file, addon);
  try {
    const insert = db.prepare(
      `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, event_id, user_id, product_id, revenue, currency)
       VALUES (?, ?, 'purchase_complete', ?, ?, ?, ?, ?, 'pro_annual', ?, ?)`,
    );
    const impression = db.prepare(
      `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, event_id, user_id, variant_id)
       VALUES (?, ?, 'screen_impression', ?, ?, ?, ?, ?, ?)`,
    );
    const ts = (lastDay + 1) * DAY_MS - 1000;
    db.transaction(() => {
      for (let user = 0; user < users; user++) {
        const seen = firstDay * DAY_MS + (user % DAY_MS);
        impression.run(projectId, PAYWALL_ID, seen, seen, seen, `seen-${user}`, `user-${user}`, VARIANTS[user % 2]);
      }
      for (let user = 0; user < users; user += BUYER_EVERY) {
        const usd = user % 3 !== 0;
        insert.run(projectId, PAYWALL_ID, ts, ts, ts, `buy-${user}`, `user-${user}`, usd ? [9.99, 49.99][user % 2] : 8.99, usd ? 'USD' : 'EUR');
      }
      db.prepare('UPDATE paywall_phases SET started_at = ? WHERE project_id = ? AND paywall_id = ?').run(firstDay * DAY_MS, projectId, PAYWALL_ID);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

export async function results(ctx) {
  const { sizes, requests } = ctx.options.results;
  const servers = [];
  const databases = [];
  for (const total of sizes) {
    const dir = ctx.dir(`results-${total}`);
    const file = path.join(dir, 'paywalld.db');
    const project = await createDatabase(ctx.dist, file);
    const seeding = await startPaywalld(ctx.dist, file, { logFile: path.join(dir, 'seed.log') });
    await seedFixture(seeding.url, project.secret);
    await stopAll(seeding);
    const users = Math.round(total * USERS_PER_EVENT);
    ctx.log(`  loading ${f.size(total)} events from ${f.size(users)} users (${DAYS} days) straight into the database`);
    const range = await loadEventsInWorker({ file, addon: ctx.dist.sqliteAddon, projectId: project.projectId, paywallId: PAYWALL_ID, users, total });
    addPurchases({ file, addon: ctx.dist.sqliteAddon, projectId: project.projectId, users, ...range });
    const rebuild = await rebuildDerived(file);
    ctx.log(`  ${f.size(total)}: derived state rebuilt from the raw events in ${(rebuild.ms / 1000).toFixed(1)} s`);
    const server = await startPaywalld(ctx.dist, file, { logFile: path.join(dir, 'paywalld.log'), nodeOptions: ctx.nodeOptions(dir) });
    server.name = `paywalld, results at ${f.size(total)} events`;
    await waitFor(async () => /"msg":"event statistics ready"/.test(server.stdout()), 600_000, 'the statistics were not ready');
    // As the stats scenario: the steady state, after the writer filled its dedup key filter in steps.
    await waitFor(async () => /"msg":"dedup key filter filled"/.test(server.stdout()), 600_000, 'the dedup key filter was not filled');
    servers.push(server);
    databases.push({ total, users, project, server, rebuild });
  }
  return measuring(servers, async () => {
    const rows = [];
    const details = [];
    const targets = [];
    for (const database of databases) {
      const { server, project, users, total } = database;
      const secret = { authorization: `Bearer ${project.secret}` };
      const url = `${server.url}/api/paywalls/${PAYWALL_ID}/results`;
      const coldStart = performance.now();
      const first = await fetch(url, { headers: secret });
      const body = await first.json();
      const coldMs = performance.now() - coldStart;
      if (first.status !== 200) throw new ScenarioError(`GET results: ${first.status} ${JSON.stringify(body)}`);
      const exposed = body.variants.reduce((sum, v) => sum + v.exposed_users, 0);
      const conversions = body.variants.reduce((sum, v) => sum + v.conversions, 0);
      const buyers = Math.ceil(users / BUYER_EVERY);
      if (exposed !== users || conversions < buyers)
        throw new ScenarioError(`results count ${exposed} exposed users and ${conversions} conversions; ${users} and at least ${buyers} were loaded`);
      const latencies = [];
      for (let i = 0; i < requests; i++) {
        const event = { type: 'screen_impression', paywall_id: PAYWALL_ID, ts: Date.now(), id: `bench-${i}`, user_id: `fresh-${i}`, variant_id: 'control' };
        const sent = await fetch(`${server.url}/api/sdk/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${project.sdk}` },
          body: JSON.stringify({ events: [event] }),
        });
        if (sent.status !== 200) throw new ScenarioError(`POST events answered ${sent.status}`);
        await sent.arrayBuffer();
        const start = performance.now();
        const response = await fetch(url, { headers: secret });
        await response.arrayBuffer();
        latencies.push(performance.now() - start);
        if (response.status !== 200) throw new ScenarioError(`GET results answered ${response.status}`);
      }
      assertAlive(server);
      latencies.sort((a, b) => a - b);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      rows.push(row(`results, ${f.size(exposed)} exposed users, ${f.size(total)} events`, { paywalld: f.ms(p50), p50: f.ms(p50), p99: f.ms(p99) }));
      details.push(
        `results at ${f.size(total)} events from ${f.size(users)} users: ${f.count(exposed)} exposed, ${f.count(conversions)} conversions; ` +
          `first request ${f.ms(coldMs)}, then ${requests} requests each after a committed event (median ${f.ms(median(latencies))}); ` +
          `derived state rebuilt in ${f.ms(database.rebuild.ms)}; RSS ${f.mb(rss(server.pid))}`,
      );
      const tenMillion = total >= 10_000_000;
      targets.push({
        text: `results p50 < 50 ms at ${f.size(total)} events${tenMillion ? '' : ' (10 M events, 1 M exposed users with --full)'}`,
        measured: f.ms(p50),
        met: tenMillion || p50 >= 50 ? p50 < 50 : undefined,
      });
    }
    return { rows, details, targets };
  });
}
