/**
 * PostgreSQL scenario: statistics and results latency on two instances on
 * one PostgreSQL, beside a paywalld on SQLite holding the same events. The
 * events are loaded into a SQLite file as the stats and results scenarios
 * load theirs (bench/lib/load-events.mjs, then one impression per user and
 * some purchases), then copied into PostgreSQL by `paywalld migrate-to`;
 * each server builds its derived state from the raw events at start (the
 * PostgreSQL instances' rebuild time per 10⁶ events is reported, and the
 * size and time of the first checkpoint the leader writes). Every server
 * must count the same events. Results are asked as the results scenario
 * asks them, each request after a committed event. Last, the tail lag: one
 * event sent to instance A, until instance B's statistics count it.
 */
import path from 'node:path';
import { PAYWALL_ID, seedFixture } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { DAYS, loadEventsInWorker } from '../lib/load-events.mjs';
import { createDatabase, startPaywalld } from '../lib/paywalld.mjs';
import { postgresDatabase, postgresInstances } from '../lib/postgres.mjs';
import { run } from '../lib/processes.mjs';
import { alternate, medianOf, percentile } from '../lib/rounds.mjs';
import { assertAlive, measuring, row, stopAll, waitFor } from '../lib/scenario.mjs';
import { ScenarioError } from '../lib/wrk.mjs';
import { addPurchases } from './results.mjs';
import { timedRequests } from './stats.mjs';

const DAY_MS = 24 * 60 * 60 * 1000;
const USERS_PER_EVENT = 0.1;
const LAG_SAMPLES = 20;
const dayText = (day) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The first log line of `server` with message `msg`, parsed, once it is there. */
async function logLine(server, msg) {
  const pattern = new RegExp(`"msg":"${msg}"`);
  await waitFor(async () => pattern.test(server.stdout()), 600_000, `${server.name} did not log "${msg}"`);
  return JSON.parse(
    server
      .stdout()
      .split('\n')
      .find((line) => pattern.test(line)),
  );
}

async function getJson(url, headers) {
  const response = await fetch(url, { headers });
  const body = await response.json();
  if (response.status !== 200) throw new ScenarioError(`GET ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const eventCount = (stats) => stats.variants.reduce((sum, v) => sum + Object.values(v.totals.counts).reduce((a, b) => a + b, 0), 0);

async function sendEvent(server, sdk, event) {
  const sent = await fetch(`${server.url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${sdk}` },
    body: JSON.stringify({ events: [event] }),
  });
  await sent.arrayBuffer();
  if (sent.status !== 200) throw new ScenarioError(`POST events to ${server.name} answered ${sent.status}`);
}

export async function postgresReads(ctx) {
  const total = ctx.options.stats.sizes[0];
  const { requests } = ctx.options.stats;
  const dir = ctx.dir('postgres-reads');
  const file = path.join(dir, 'paywalld.db');
  const project = await createDatabase(ctx.dist, file);
  const seeding = await startPaywalld(ctx.dist, file, { logFile: path.join(dir, 'seed.log') });
  await seedFixture(seeding.url, project.secret);
  await stopAll(seeding);
  const users = Math.round(total * USERS_PER_EVENT);
  ctx.log(`  loading ${f.size(total)} events from ${f.size(users)} users (${DAYS} days) into SQLite, then migrate-to PostgreSQL`);
  const range = await loadEventsInWorker({ file, addon: ctx.dist.sqliteAddon, projectId: project.projectId, paywallId: PAYWALL_ID, users, total });
  addPurchases({ file, addon: ctx.dist.sqliteAddon, projectId: project.projectId, users, ...range });
  const url = await postgresDatabase();
  const copyStart = performance.now();
  await run(undefined, process.execPath, [ctx.dist.script, 'migrate-to', url, '--from', file]);
  const copyMs = performance.now() - copyStart;
  const sqlite = await startPaywalld(ctx.dist, file, { logFile: path.join(dir, 'paywalld-sqlite.log') });
  sqlite.name = 'SQLite';
  const { instances } = await postgresInstances(ctx, dir, 2, { url, project });
  const servers = [...instances, sqlite];
  return measuring(servers, async () => {
    const starts = [];
    for (const server of servers) starts.push(await logLine(server, 'event statistics ready'));
    await logLine(sqlite, 'dedup key filter filled');
    const checkpoint = await Promise.race(instances.map((instance) => logLine(instance, 'event checkpoint written')));
    const secret = { authorization: `Bearer ${project.secret}` };
    const statsPath = `/api/paywalls/${PAYWALL_ID}/stats?from=${dayText(range.firstDay)}&to=${dayText(range.lastDay + 1)}`;
    const counted = [];
    for (const server of servers) counted.push(eventCount(await getJson(`${server.url}${statsPath}`, secret)));
    if (new Set(counted).size !== 1)
      throw new ScenarioError(`the servers count different events: ${servers.map((s, i) => `${s.name} ${counted[i]}`).join(', ')}`);
    let sent = 0;
    const contenders = servers.flatMap((server) => [
      {
        name: `stats, ${server.name}`,
        describe: (r) => `p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}`,
        run: async () => {
          const latencies = (await timedRequests(`${server.url}${statsPath}`, secret, requests)).sort((a, b) => a - b);
          assertAlive(...servers);
          return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
        },
      },
      {
        name: `results, ${server.name}`,
        describe: (r) => `p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}`,
        run: async () => {
          const latencies = [];
          for (let i = 0; i < requests; i++) {
            const id = sent++;
            await sendEvent(server, project.sdk, {
              type: 'screen_impression',
              paywall_id: PAYWALL_ID,
              ts: Date.now(),
              id: `bench-${id}`,
              user_id: `fresh-${id}`,
              variant_id: 'control',
            });
            latencies.push((await timedRequests(`${server.url}/api/paywalls/${PAYWALL_ID}/results`, secret, 1))[0]);
          }
          assertAlive(...servers);
          latencies.sort((a, b) => a - b);
          return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
        },
      },
    ]);
    const results = await alternate(contenders, ctx);
    // The tail: from A's acknowledgement to B's statistics counting the event.
    const [a, b] = instances;
    const lags = [];
    let expected = eventCount(await getJson(`${b.url}${statsPath}`, secret));
    for (let i = 0; i < LAG_SAMPLES; i++) {
      await sendEvent(a, project.sdk, {
        type: 'screen_impression',
        paywall_id: PAYWALL_ID,
        ts: Date.now(),
        id: `lag-${i}`,
        user_id: `lag-${i}`,
        variant_id: 'control',
      });
      const acked = performance.now();
      expected++;
      await waitFor(async () => eventCount(await getJson(`${b.url}${statsPath}`, secret)) >= expected, 5000, 'instance B did not count the event');
      lags.push(performance.now() - acked);
    }
    lags.sort((x, y) => x - y);
    const cell = (name) => {
      const r = results.get(name);
      return { paywalld: f.ms(medianOf(r, 'p50')), p50: f.ms(medianOf(r, 'p50')), p99: f.ms(medianOf(r, 'p99')) };
    };
    const versus = (what, instance) => {
      const mine = cell(`${what}, ${instance.name}`);
      return row(`PostgreSQL ${what}, ${instance.name}, ${f.size(total)} events — vs SQLite p50`, { ...mine, baseline: cell(`${what}, SQLite`).p50 });
    };
    const perMillion = ({ rebuild_ms: ms, replayed_events: events }) => `${(((ms / events) * 1e6) / 1000).toFixed(1)} s per 10⁶ events`;
    const start = ({ rebuild_ms: ms, checkpoint_seq: seq, replayed_events: events }) =>
      `${f.ms(ms)} (${seq > 0 ? `checkpoint at seq ${f.count(seq)} loaded, ` : ''}${f.count(events)} events folded)`;
    return {
      rows: [...instances.map((i) => versus('stats', i)), ...instances.map((i) => versus('results', i))],
      details: [
        `PostgreSQL reads: ${f.count(counted[0])} events from ${f.count(users)} users over ${DAYS} days, the same on every server; ${requests} requests per round, one after another.`,
        `  migrate-to copied them into PostgreSQL in ${f.ms(copyMs)}; derived state at start: ${servers.map((s, i) => `${s.name} ${start(starts[i])}`).join(', ')}`,
        `  rebuilt from the raw events without a checkpoint: instance A ${perMillion(starts[0])}, SQLite ${perMillion(starts[2])}`,
        `  first checkpoint written by the leader: ${(checkpoint.bytes / 2 ** 20).toFixed(1)} MiB in ${f.ms(checkpoint.ms)}`,
        ...contenders.map((c) => {
          const r = results.get(c.name);
          return `  ${c.name.padEnd(22)} p50 ${f.list(r, (x) => f.ms(x.p50))}; p99 ${f.list(r, (x) => f.ms(x.p99))}`;
        }),
        `  tail lag (A acknowledged one event, until B's statistics count it), ${LAG_SAMPLES} samples: median ${f.ms(percentile(lags, 50))}, p95 ${f.ms(percentile(lags, 95))}, max ${f.ms(lags.at(-1))}`,
      ],
      targets: [],
    };
  });
}
