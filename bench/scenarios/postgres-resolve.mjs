/**
 * PostgreSQL scenario: resolve (GET /api/sdk/config, bench/wrk/resolve.lua)
 * on each of two paywalld instances on one PostgreSQL, beside a paywalld on
 * SQLite in the same run, in alternating rounds. Resolve is answered from
 * memory on both backends: the figures should match.
 */
import { checkingAnswers } from '../lib/answers.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld } from '../lib/paywalld.mjs';
import { postgresInstances } from '../lib/postgres.mjs';
import { withUsage } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { describeRequests, resolving } from './resolve.mjs';

export async function postgresResolve(ctx) {
  const dir = ctx.dir('postgres-resolve');
  const { instances } = await postgresInstances(ctx, dir, 2);
  const sqlite = await servingPaywalld(ctx, ctx.dir('postgres-resolve-sqlite'));
  sqlite.name = 'SQLite';
  const servers = [...instances, sqlite];
  const { connections } = ctx.options.resolve;
  return measuring(servers, async () => {
    const contender = (server) => ({
      name: server.name,
      describe: describeRequests,
      run: async (seconds) => {
        const result = await checkingAnswers(server, () => withUsage(server.pid, () => resolving(ctx, server, server.project.sdk, { connections, seconds })));
        assertAlive(...servers);
        return { ...result, perCpuSecond: result.perSecond / result.cpu };
      },
    });
    const results = await alternate(servers.map(contender), ctx);
    const base = results.get('SQLite');
    const rows = instances.map((instance) => {
      const mine = results.get(instance.name);
      return row(`PostgreSQL resolve, ${instance.name}, ${connections} conns — vs SQLite, requests per server CPU-second`, {
        paywalld: `${f.count(medianOf(mine, 'perCpuSecond'))} req/CPU-s`,
        baseline: `${f.count(medianOf(base, 'perCpuSecond'))} req/CPU-s`,
        ratio: f.ratio(ratios(mine, base, 'perCpuSecond').median),
        p50: f.ms(medianOf(mine, 'p50')),
        p99: f.ms(medianOf(mine, 'p99')),
      });
    });
    const details = [
      `PostgreSQL resolve: ${connections} connections, one instance at a time, the resolve scenario's wrk script; SQLite: a paywalld on its own file.`,
      ...servers.map((server) => {
        const r = results.get(server.name);
        return `  ${server.name.padEnd(12)} req/s ${f.list(r, (x) => f.count(x.perSecond))}; per CPU-s ${f.list(r, (x) => f.count(x.perCpuSecond))}; p50 ${f.ms(medianOf(r, 'p50'))}, p99 ${f.list(r, (x) => f.ms(x.p99))}`;
      }),
    ];
    return { rows, details, targets: [] };
  });
}
