/**
 * Scenario 1: GET /api/sdk/config with userId over 100,000 users and the
 * locale, platform and country varying, against a bare uWebSockets.js server
 * and a bare node:http server answering a cached body of the same size, all
 * three driven by the same wrk script (bench/wrk/resolve.lua).
 *
 * The headline is requests per server CPU-second: one wrk thread on one core
 * costs about as much per request as bare uWS spends answering it, so bare
 * uWS's throughput is wrk's ceiling as much as its own, while the CPU time a
 * server spends per request is its own whoever sets the pace. wrk's share of
 * its core is reported beside each figure, so a load-bound run shows as one.
 */
import path from 'node:path';
import { checkingAnswers } from '../lib/answers.mjs';
import { PAYWALL_ID, resolveBodySize } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld, startBaseline } from '../lib/paywalld.mjs';
import { withUsage } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { wrk } from '../lib/wrk.mjs';

export const USERS = 100_000;
const BASELINES = path.join(import.meta.dirname, '..', 'baselines');
/** wrk above this share of its core while the server is below it: the load generator set the pace. */
const BUSY = 0.9;

export const describeRequests = (r) =>
  `${f.perSecond(r.perSecond, 'req')}  p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}` +
  `${r.cpu === undefined ? '' : `  server CPU ${f.percent(r.cpu)} (${f.count(r.perCpuSecond)} req per CPU-s)`}` +
  `${Number.isNaN(r.loadCpu) ? '' : `  wrk CPU ${f.percent(r.loadCpu)}`}`;

/** One wrk run of bench/wrk/resolve.lua (users from a pool) against `server`. */
export function resolving(ctx, server, sdkKey, { connections, seconds }) {
  return wrk({
    url: server.url,
    script: 'resolve.lua',
    scriptArgs: [sdkKey, PAYWALL_ID, String(USERS), 'pool', ctx.nonce()],
    connections,
    seconds,
  });
}

export async function resolve(ctx) {
  const dir = ctx.dir('resolve');
  const paywalld = await servingPaywalld(ctx, dir);
  paywalld.name = 'paywalld';
  const size = await resolveBodySize(paywalld.url, paywalld.project.sdk);
  const uws = await startBaseline(path.join(BASELINES, 'uws-cached.mjs'), [ctx.dist.uwsAddon, String(size)], path.join(dir, 'uws.log'));
  uws.name = 'bare uWS';
  const node = await startBaseline(path.join(BASELINES, 'node-http-cached.mjs'), [String(size)], path.join(dir, 'node-http.log'));
  node.name = 'node:http';
  const servers = [paywalld, uws, node];
  const { connections } = ctx.options.resolve;
  ctx.log(`  response body ${size} bytes; ${connections} connections; userId over ${f.count(USERS)} users`);
  return measuring(servers, async () => {
    const contender = (server) => ({
      name: server.name,
      describe: describeRequests,
      run: async (seconds) => {
        const result = await checkingAnswers(server, () => withUsage(server.pid, () => resolving(ctx, server, paywalld.project.sdk, { connections, seconds })));
        assertAlive(...servers);
        return { ...result, perCpuSecond: result.perSecond / result.cpu };
      },
    });
    const results = await alternate(servers.map(contender), ctx);
    const [mine, bare, plain] = ['paywalld', 'bare uWS', 'node:http'].map((name) => results.get(name));
    const perCpu = ratios(mine, bare, 'perCpuSecond');
    const perCpuNode = ratios(mine, plain, 'perCpuSecond');
    const vsUws = ratios(mine, bare, 'perSecond');
    const vsNode = ratios(mine, plain, 'perSecond');
    const p99 = medianOf(mine, 'p99');
    const latency = { p50: f.ms(medianOf(mine, 'p50')), p99: f.ms(p99) };
    const perCpuCell = (rounds) => `${f.count(medianOf(rounds, 'perCpuSecond'))} req/CPU-s`;
    const shares = (rounds) => `server ${f.list(rounds, (r) => f.percent(r.cpu))}, wrk ${f.list(rounds, (r) => f.percent(r.loadCpu))}`;
    const loadBound = [paywalld, uws, node].filter((server) => {
      const rounds = results.get(server.name);
      return medianOf(rounds, 'loadCpu') >= BUSY && medianOf(rounds, 'cpu') < BUSY;
    });
    return {
      rows: [
        row(`resolve, ${connections} conns — vs bare uWS, requests per server CPU-second`, {
          paywalld: perCpuCell(mine),
          baseline: perCpuCell(bare),
          ratio: f.ratio(perCpu.median),
          ...latency,
        }),
        row(`resolve, ${connections} conns — vs bare uWS, throughput`, {
          paywalld: f.perSecond(medianOf(mine, 'perSecond'), 'req'),
          baseline: f.perSecond(medianOf(bare, 'perSecond'), 'req'),
          ratio: f.ratio(vsUws.median),
          ...latency,
        }),
        row(`resolve, ${connections} conns — vs node:http, requests per server CPU-second`, {
          paywalld: perCpuCell(mine),
          baseline: perCpuCell(plain),
          ratio: f.ratio(perCpuNode.median),
          ...latency,
        }),
      ],
      details: [
        `resolve: response ${size} bytes, ${connections} connections, userId over ${f.count(USERS)} users, locale/platform/country varying;`,
        `  the same wrk script (requests built once, no per-response Lua) for all three; every non-2xx answer counted at the servers fails the run.`,
        `  requests per server CPU-second per round: paywalld ${f.list(mine, (r) => f.count(r.perCpuSecond))}; bare uWS ${f.list(bare, (r) => f.count(r.perCpuSecond))}; node:http ${f.list(plain, (r) => f.count(r.perCpuSecond))}`,
        `  ratio per server CPU-second per round: to bare uWS ${f.list(perCpu.perRound, f.ratio)}; to node:http ${f.list(perCpuNode.perRound, f.ratio)}`,
        `  req/s per round: paywalld ${f.list(mine, (r) => f.count(r.perSecond))}; bare uWS ${f.list(bare, (r) => f.count(r.perSecond))}; node:http ${f.list(plain, (r) => f.count(r.perSecond))}`,
        `  throughput ratio per round: to bare uWS ${f.list(vsUws.perRound, f.ratio)}; to node:http ${f.list(vsNode.perRound, f.ratio)}`,
        `  p50 / p99: paywalld ${f.ms(medianOf(mine, 'p50'))} / ${f.list(mine, (r) => f.ms(r.p99))}; bare uWS ${f.ms(medianOf(bare, 'p50'))} / ${f.ms(medianOf(bare, 'p99'))}; node:http ${f.ms(medianOf(plain, 'p50'))} / ${f.ms(medianOf(plain, 'p99'))}`,
        `  CPU share of its core per round: paywalld ${shares(mine)}; bare uWS ${shares(bare)}; node:http ${shares(plain)}`,
        loadBound.length === 0
          ? `  no server was load-bound (wrk below ${f.percent(BUSY)} of its core, or the server above it).`
          : `  load-bound (wrk ≥ ${f.percent(BUSY)} of its core, server below): ${loadBound.map((s) => s.name).join(', ')}; its throughput is wrk's ceiling, its requests per CPU-second are its own.`,
      ],
      targets: [
        { text: 'resolve ≥ 0.7 × bare uWS per server CPU-second (median of per-round ratios)', measured: f.ratio(perCpu.median), met: perCpu.median >= 0.7 },
        { text: `resolve p99 < 2 ms at ${connections} connections`, measured: f.ms(p99), met: p99 < 2 },
      ],
    };
  });
}
