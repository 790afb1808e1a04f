/**
 * Scenario 3: GET /api/paywalls/{id}/stats over 30 days, one connection, on
 * databases holding different numbers of events (loaded straight into the
 * file with the server's statements, before the server starts). The
 * baseline is the smallest database: latency must not grow with the count.
 */
import path from 'node:path';
import { PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { DAYS, loadEventsInWorker } from '../lib/load-events.mjs';
import { createDatabase, startPaywalld } from '../lib/paywalld.mjs';
import { seedFixture } from '../lib/fixture.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { ScenarioError, wrk } from '../lib/wrk.mjs';
import { describeRequests, USERS } from './resolve.mjs';

const DAY_MS = 24 * 60 * 60 * 1000;
const TARGET_EVENTS = 10_000_000;
const dayText = (day) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const size = (n) => (n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1000} k`);

export async function stats(ctx) {
  const { sizes, connections } = ctx.options.stats;
  const databases = [];
  for (const total of sizes) {
    const dir = ctx.dir(`stats-${total}`);
    const file = path.join(dir, 'paywalld.db');
    databases.push({ total, dir, file, project: await createDatabase(ctx.dist, file) });
  }
  const loadStart = performance.now();
  ctx.log(`  loading ${sizes.map(size).join(' and ')} events (${f.count(USERS)} users, ${DAYS} days) straight into the databases`);
  const ranges = await Promise.all(
    databases.map(({ file, project, total }) =>
      loadEventsInWorker({ file, addon: ctx.dist.sqliteAddon, projectId: project.projectId, paywallId: PAYWALL_ID, users: USERS, total }),
    ),
  );
  const loadSeconds = (performance.now() - loadStart) / 1000;
  ctx.log(`  loaded in ${loadSeconds.toFixed(1)} s`);
  const servers = [];
  for (const database of databases) {
    const server = await startPaywalld(ctx.dist, database.file, { logFile: path.join(database.dir, 'paywalld.log'), nodeOptions: ctx.nodeOptions(database.dir) });
    server.name = `paywalld, ${size(database.total)} events`;
    servers.push(server);
  }
  return measuring(servers, async () => {
    const contenders = [];
    for (const [i, database] of databases.entries()) {
      const server = servers[i];
      await seedFixture(server.url, database.project.secret);
      const { firstDay, lastDay } = ranges[i];
      const statsPath = `/api/paywalls/${PAYWALL_ID}/stats?from=${dayText(firstDay)}&to=${dayText(lastDay)}`;
      await checkTotals(server.url + statsPath, database.project.secret, database.total);
      contenders.push({
        name: server.name,
        describe: describeRequests,
        run: async (seconds) => {
          const result = await wrk({
            url: server.url + statsPath,
            script: 'get.lua',
            headers: [`Authorization: Bearer ${database.project.secret}`],
            connections,
            seconds,
          });
          assertAlive(...servers);
          return result;
        },
      });
    }
    const results = await alternate(contenders, ctx);
    const [small, large] = [contenders[0], contenders.at(-1)].map((c) => results.get(c.name));
    const growth = ratios(large, small, 'p50');
    const [smallest, largest] = [sizes[0], sizes.at(-1)];
    const largeP99 = medianOf(large, 'p99');
    const tenMillion = largest >= TARGET_EVENTS;
    return {
      rows: [
        row(`stats, ${DAYS} days, ${size(smallest)} events`, {
          paywalld: f.ms(medianOf(small, 'p50')),
          p50: f.ms(medianOf(small, 'p50')),
          p99: f.ms(medianOf(small, 'p99')),
        }),
        row(`stats, ${DAYS} days, ${size(largest)} events — vs ${size(smallest)} (latency ratio)`, {
          paywalld: f.ms(medianOf(large, 'p50')),
          baseline: f.ms(medianOf(small, 'p50')),
          ratio: f.ratio(growth.median),
          p50: f.ms(medianOf(large, 'p50')),
          p99: f.ms(largeP99),
        }),
      ],
      details: [
        `stats: ${connections} connection; events over ${DAYS} days, userId over ${f.count(USERS)} users; loaded in ${loadSeconds.toFixed(1)} s.`,
        ...databases.map((d, i) => {
          const r = results.get(contenders[i].name);
          return `  ${size(d.total)} events: p50 per round ${f.list(r, (x) => f.ms(x.p50))}, p99 ${f.list(r, (x) => f.ms(x.p99))} (${f.list(r, (x) => f.count(x.requests))} requests)`;
        }),
        `  p50 ratio ${size(largest)}/${size(smallest)} per round: ${f.list(growth.perRound, f.ratio)}`,
      ],
      targets: [
        {
          text: `stats p99 < 50 ms over 10 M events${tenMillion ? '' : ` (this run: ${size(largest)}; 10 M with --full)`}`,
          measured: f.ms(largeP99),
          met: tenMillion || largeP99 >= 50 ? largeP99 < 50 : undefined,
        },
        {
          text: `stats flat from ${size(smallest)} to ${size(largest)} (p50 ratio ≤ 1.2)`,
          measured: f.ratio(growth.median),
          met: growth.median <= 1.2,
        },
      ],
    };
  });
}

/** The loaded events must all be counted, or the latency figures are of the wrong query. */
async function checkTotals(url, secret, total) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
  const body = await response.json();
  if (!response.ok) throw new ScenarioError(`GET stats: ${response.status} ${JSON.stringify(body)}`);
  const counted = body.variants.reduce((sum, v) => sum + Object.values(v.totals.counts).reduce((a, b) => a + b, 0), 0);
  if (counted !== total) throw new ScenarioError(`the statistics count ${counted} events, ${total} were loaded`);
}
