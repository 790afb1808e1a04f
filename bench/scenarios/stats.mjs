/**
 * Scenario 3: GET /api/paywalls/{id}/stats over 30 days, one request after
 * another on one connection, a fixed number of requests per round (never a
 * time window: a slow answer is measured, not a failure), on databases
 * holding different numbers of events from users numbering a tenth of the
 * events (1 M users at 10 M events). The events are appended straight into
 * the file and the derived state is built by the server's own code before
 * the server starts (bench/lib/load-events.mjs). The baseline is the smallest
 * database: latency must not grow with the count.
 *
 * Each server's start is measured too: how long after the spawn resolve
 * answered, and how long loading the derived state took (from its log).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PAYWALL_ID, seedFixture } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { DAYS, loadEventsInWorker, rebuildDerived } from '../lib/load-events.mjs';
import { createDatabase, startPaywalld } from '../lib/paywalld.mjs';
import { rss } from '../lib/processes.mjs';
import { alternate, medianOf, percentile, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row, stopAll, waitFor } from '../lib/scenario.mjs';
import { ScenarioError } from '../lib/wrk.mjs';

const DAY_MS = 24 * 60 * 60 * 1000;
const TARGET_EVENTS = 10_000_000;
/** Users per event in the loaded databases: 100,000 users at 1 M events, 1 M at 10 M. */
const USERS_PER_EVENT = 0.1;
const dayText = (day) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** `count` requests one after another; the latency of each, in ms. */
export async function timedRequests(url, headers, count) {
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    latencies.push(performance.now() - start);
    if (response.status !== 200) throw new ScenarioError(`GET stats answered ${response.status}`);
  }
  return latencies;
}

/** Starts a paywalld on a loaded database and measures its start: resolve answering, and the derived state loaded. */
async function startMeasured(ctx, database) {
  const logFile = path.join(database.dir, 'paywalld.log');
  const spawned = performance.now();
  const server = await startPaywalld(ctx.dist, database.file, { logFile, nodeOptions: ctx.nodeOptions(database.dir) });
  const resolveUrl = `${server.url}/api/sdk/config?paywallId=${PAYWALL_ID}&userId=start`;
  const auth = { authorization: `Bearer ${database.project.sdk}` };
  await waitFor(async () => (await fetch(resolveUrl, { headers: auth })).status === 200, 30_000, 'resolve did not answer');
  const resolveMs = performance.now() - spawned;
  await waitFor(async () => /"msg":"event statistics ready"/.test(server.stdout()), 600_000, 'the statistics were not ready');
  const ready = JSON.parse(
    server
      .stdout()
      .split('\n')
      .find((line) => line.includes('"msg":"event statistics ready"')),
  );
  // After the start the writer fills its dedup key filter in small steps between other work; the latency
  // figures are of the steady state, so they wait for it (its time is reported).
  await waitFor(async () => /"msg":"dedup key filter filled"/.test(server.stdout()), 600_000, 'the dedup key filter was not filled');
  const filled = JSON.parse(
    server
      .stdout()
      .split('\n')
      .find((line) => line.includes('"msg":"dedup key filter filled"')),
  );
  return { server, start: { resolveMs, loadMs: ready.rebuild_ms, replayed: ready.replayed_events, fillMs: filled.fill_ms, rss: rss(server.pid) } };
}

export async function stats(ctx) {
  const { sizes, requests } = ctx.options.stats;
  const databases = [];
  for (const total of sizes) {
    const dir = ctx.dir(`stats-${total}`);
    const file = path.join(dir, 'paywalld.db');
    const project = await createDatabase(ctx.dist, file);
    // The paywall first, so that resolve can answer from the first moment of the measured start.
    const seeding = await startPaywalld(ctx.dist, file, { logFile: path.join(dir, 'seed.log') });
    await seedFixture(seeding.url, project.secret);
    await stopAll(seeding);
    databases.push({ total, users: Math.round(total * USERS_PER_EVENT), dir, file, project });
  }
  const loadStart = performance.now();
  ctx.log(
    `  loading ${databases.map((d) => `${f.size(d.total)} events from ${f.size(d.users)} users`).join(' and ')} (${DAYS} days) straight into the databases`,
  );
  const ranges = await Promise.all(
    databases.map(({ file, project, total, users }) =>
      loadEventsInWorker({ file, addon: ctx.dist.sqliteAddon, projectId: project.projectId, paywallId: PAYWALL_ID, users, total }),
    ),
  );
  const loadSeconds = (performance.now() - loadStart) / 1000;
  ctx.log(`  appended in ${loadSeconds.toFixed(1)} s; building the derived state with the server's code`);
  for (const database of databases) {
    database.rebuild = await rebuildDerived(database.file);
    ctx.log(`  ${f.size(database.total)}: rebuilt from the raw events in ${(database.rebuild.ms / 1000).toFixed(1)} s`);
  }
  const servers = [];
  for (const database of databases) {
    const { server, start } = await startMeasured(ctx, database);
    server.name = `paywalld, ${f.size(database.total)} events`;
    database.start = start;
    servers.push(server);
  }
  return measuring(servers, async () => {
    const contenders = [];
    for (const [i, database] of databases.entries()) {
      const server = servers[i];
      const { firstDay, lastDay } = ranges[i];
      const statsUrl = `${server.url}/api/paywalls/${PAYWALL_ID}/stats?from=${dayText(firstDay)}&to=${dayText(lastDay)}`;
      const headers = { authorization: `Bearer ${database.project.secret}` };
      database.coldMs = await checkTotals(statsUrl, headers, database.total);
      contenders.push({
        name: server.name,
        describe: (r) => `p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}  (${r.requests} requests)`,
        run: async (_seconds, round) => {
          const latencies = (await timedRequests(statsUrl, headers, round === 'warmup' ? Math.ceil(requests / 10) : requests)).sort((a, b) => a - b);
          assertAlive(...servers);
          return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: latencies.length };
        },
      });
    }
    const results = await alternate(contenders, ctx);
    const [small, large] = [contenders[0], contenders.at(-1)].map((c) => results.get(c.name));
    const growth = ratios(large, small, 'p50');
    const [smallest, largest] = [databases[0], databases.at(-1)];
    const tenMillion = largest.total >= TARGET_EVENTS;
    const targets = [];
    for (const [i, database] of databases.entries()) {
      const r = results.get(contenders[i].name);
      const p50 = medianOf(r, 'p50');
      const p99 = medianOf(r, 'p99');
      const label = `${f.size(database.total)} events`;
      targets.push({ text: `stats p50 < 20 ms at ${label}`, measured: f.ms(p50), met: p50 < 20 });
      targets.push({ text: `stats p99 < 50 ms at ${label}`, measured: f.ms(p99), met: p99 < 50 });
    }
    targets.push({
      text: `stats p50 ratio ${f.size(largest.total)} / ${f.size(smallest.total)} ≤ 1.5`,
      measured: f.ratio(growth.median),
      met: growth.median <= 1.5,
    });
    targets.push({
      text: `start: resolve answers within 1 s at ${f.size(largest.total)} events${tenMillion ? '' : ' (10 M with --full)'}`,
      measured: f.ms(largest.start.resolveMs),
      met: tenMillion || largest.start.resolveMs >= 1000 ? largest.start.resolveMs < 1000 : undefined,
    });
    targets.push({
      text: `start: derived state rebuilt from the raw events in < 10 s at ${f.size(largest.total)} events`,
      measured: f.ms(largest.rebuild.ms),
      met: tenMillion || largest.rebuild.ms >= 10_000 ? largest.rebuild.ms < 10_000 : undefined,
    });
    const dbBytes = (file) => ['', '-wal'].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0);
    return {
      rows: [
        row(`stats, ${DAYS} days, ${f.size(smallest.total)} events`, {
          paywalld: f.ms(medianOf(small, 'p50')),
          p50: f.ms(medianOf(small, 'p50')),
          p99: f.ms(medianOf(small, 'p99')),
        }),
        row(`stats, ${DAYS} days, ${f.size(largest.total)} events — vs ${f.size(smallest.total)} (latency ratio)`, {
          paywalld: f.ms(medianOf(large, 'p50')),
          baseline: f.ms(medianOf(small, 'p50')),
          ratio: f.ratio(growth.median),
          p50: f.ms(medianOf(large, 'p50')),
          p99: f.ms(medianOf(large, 'p99')),
        }),
      ],
      details: [
        `stats: 1 connection, ${requests} requests per round one after another; events over ${DAYS} days, appended in ${loadSeconds.toFixed(1)} s.`,
        ...databases.map((d, i) => {
          const r = results.get(contenders[i].name);
          return (
            `  ${f.size(d.total)} events, ${f.size(d.users)} users (${f.mb(dbBytes(d.file))} on disk): first (cold) request ${f.ms(d.coldMs)}; p50 per round ${f.list(r, (x) => f.ms(x.p50))}, p99 ${f.list(r, (x) => f.ms(x.p99))}\n` +
            `    derived state rebuilt from the raw events in ${f.ms(d.rebuild.ms)}; at start: resolve answered ${f.ms(d.start.resolveMs)} after the spawn, ` +
            `checkpoint loaded in ${f.ms(d.start.loadMs)} (${f.count(d.start.replayed)} events replayed), dedup key filter filled in ${f.ms(d.start.fillMs)} after that; RSS then ${f.mb(d.start.rss)}`
          );
        }),
        `  p50 ratio ${f.size(largest.total)}/${f.size(smallest.total)} per round: ${f.list(growth.perRound, f.ratio)}`,
      ],
      targets,
    };
  });
}

/**
 * The loaded events must all be counted, or the latency figures are of the
 * wrong query. Resolves with the latency of this first (cold) request: the
 * later ones reuse the remembered union of the range's older days.
 */
async function checkTotals(url, headers, total) {
  const start = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.json();
  if (!response.ok) throw new ScenarioError(`GET stats: ${response.status} ${JSON.stringify(body)}`);
  const counted = body.variants.reduce((sum, v) => sum + Object.values(v.totals.counts).reduce((a, b) => a + b, 0), 0);
  if (counted !== total) throw new ScenarioError(`the statistics count ${counted} events, ${total} were loaded`);
  return performance.now() - start;
}
