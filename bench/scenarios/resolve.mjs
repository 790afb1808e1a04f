/**
 * Scenario 1: GET /api/sdk/config with userId over 100,000 users and the
 * locale, platform and country varying, against a bare uWebSockets.js server
 * and a bare node:http server answering a cached body of the same size.
 */
import path from 'node:path';
import { PAYWALL_ID, resolveBodySize } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld, startBaseline } from '../lib/paywalld.mjs';
import { withUsage } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { wrk } from '../lib/wrk.mjs';

export const USERS = 100_000;
const BASELINES = path.join(import.meta.dirname, '..', 'baselines');

export const describeRequests = (r) =>
  `${f.perSecond(r.perSecond, 'req')}  p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}${r.cpu === undefined ? '' : `  server CPU ${f.percent(r.cpu)}`}`;

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
        const result = await withUsage(server.pid, () =>
          wrk({
            url: server.url,
            script: 'resolve.lua',
            scriptArgs: [paywalld.project.sdk, PAYWALL_ID, String(USERS), 'pool', ctx.nonce()],
            connections,
            seconds,
          }),
        );
        assertAlive(...servers);
        return { ...result, perCpuSecond: result.perSecond / result.cpu };
      },
    });
    const results = await alternate(servers.map(contender), ctx);
    const [mine, bare, plain] = ['paywalld', 'bare uWS', 'node:http'].map((name) => results.get(name));
    const vsUws = ratios(mine, bare, 'perSecond');
    const vsNode = ratios(mine, plain, 'perSecond');
    const perCpu = ratios(mine, bare, 'perCpuSecond');
    const p99 = medianOf(mine, 'p99');
    const cells = {
      paywalld: f.perSecond(medianOf(mine, 'perSecond'), 'req'),
      p50: f.ms(medianOf(mine, 'p50')),
      p99: f.ms(p99),
    };
    return {
      rows: [
        row(`resolve, ${connections} conns — vs bare uWS, cached body`, {
          ...cells,
          baseline: f.perSecond(medianOf(bare, 'perSecond'), 'req'),
          ratio: f.ratio(vsUws.median),
        }),
        row(`resolve, ${connections} conns — vs node:http, cached body`, {
          ...cells,
          baseline: f.perSecond(medianOf(plain, 'perSecond'), 'req'),
          ratio: f.ratio(vsNode.median),
        }),
      ],
      details: [
        `resolve: response ${size} bytes, ${connections} connections, userId over ${f.count(USERS)} users, locale/platform/country varying.`,
        `  paywalld req/s per round: ${f.list(mine, (r) => f.count(r.perSecond))}; p99 ${f.list(mine, (r) => f.ms(r.p99))}`,
        `  bare uWS req/s per round: ${f.list(bare, (r) => f.count(r.perSecond))}; p50 ${f.ms(medianOf(bare, 'p50'))}, p99 ${f.ms(medianOf(bare, 'p99'))}`,
        `  node:http req/s per round: ${f.list(plain, (r) => f.count(r.perSecond))}; p50 ${f.ms(medianOf(plain, 'p50'))}, p99 ${f.ms(medianOf(plain, 'p99'))}`,
        `  ratio to bare uWS per round: ${f.list(vsUws.perRound, f.ratio)}; to node:http: ${f.list(vsNode.perRound, f.ratio)}`,
        `  server CPU (share of its core): paywalld ${f.percent(medianOf(mine, 'cpu'))}, bare uWS ${f.percent(medianOf(bare, 'cpu'))}, node:http ${f.percent(medianOf(plain, 'cpu'))};`,
        `  a server below 100 % was not the bottleneck (wrk's core was). Requests per server CPU-second: paywalld ${f.count(medianOf(mine, 'perCpuSecond'))},`,
        `  bare uWS ${f.count(medianOf(bare, 'perCpuSecond'))} (ratio ${f.ratio(perCpu.median)}), node:http ${f.count(medianOf(plain, 'perCpuSecond'))}.`,
      ],
      targets: [
        { text: 'resolve ≥ 0.8 × bare uWS (median of per-round ratios)', measured: f.ratio(vsUws.median), met: vsUws.median >= 0.8 },
        { text: `resolve p99 < 2 ms at ${connections} connections`, measured: f.ms(p99), met: p99 < 2 },
      ],
    };
  });
}
