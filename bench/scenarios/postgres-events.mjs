/**
 * PostgreSQL scenario: POST /api/sdk/events, 100 events per request, through
 * two paywalld instances on one database (two wrk at once, half the
 * connections each), against a bare loop inserting the same rows into the
 * same events table of the same database (bench/baselines/postgres-insert.mjs:
 * two connections, as two instances, 1,000-row transactions of the server's
 * INSERT, without the events lock). Afterwards the table must hold every
 * event wrk saw acknowledged by either instance.
 */
import path from 'node:path';
import { checkingAnswers } from '../lib/answers.mjs';
import { BATCH } from '../lib/events.mjs';
import { PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { postgresInstances, withPostgres } from '../lib/postgres.mjs';
import { cpuSeconds, pinning, run } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { assertStored, describeEvents, ingest } from './events.mjs';

const BASELINE = path.join(import.meta.dirname, '..', 'baselines', 'postgres-insert.mjs');
/** The bare loop's connections (one per instance) and rows per transaction (the SQLite baseline's). */
const BARE_CONNECTIONS = 2;
const BARE_ROWS = 1000;
/**
 * The shortest round: at 64 connections a request waits for up to two commits
 * of 3,200 rows, near a second on a loaded 2-core machine, and a round in which
 * no request completes measures nothing (--quick's 1 s rounds did that in CI).
 */
const MIN_ROUND_SECONDS = 3;

export async function postgresEvents(ctx) {
  const dir = ctx.dir('postgres-events');
  const { url, project, instances } = await postgresInstances(ctx, dir, 2);
  const { connections: connectionCounts } = ctx.options.events;
  let acknowledged = 0;
  let slack = 0;
  let bareRows = 0;
  const bareLoop = (name, lock) => ({
    name,
    describe: describeEvents,
    run: async (seconds) => {
      const args = [BASELINE, url, project.projectId, PAYWALL_ID, String(seconds), ctx.nonce(), String(BARE_CONNECTIONS), String(BARE_ROWS), lock];
      const { stdout } = await run(pinning.server, process.execPath, args);
      const { rows, seconds: elapsed, cpu } = JSON.parse(stdout.trim().split('\n').at(-1));
      bareRows += rows;
      return { events: rows, perSecond: rows / elapsed, cpu };
    },
  });
  const bare = bareLoop('bare INSERT, 2 connections', 'nolock');
  const locked = bareLoop('the same with the events lock', 'lock');
  return measuring(instances, async () => {
    const posting = (connections) => ({
      name: `paywalld ×2, ${connections} conns`,
      describe: describeEvents,
      run: async (seconds) => {
        const cpuBefore = instances.map((server) => cpuSeconds(server.pid));
        const started = performance.now();
        const each = await Promise.all(
          instances.map((server) => checkingAnswers(server, () => ingest(ctx, server, { connections: connections / instances.length, seconds }))),
        );
        const elapsed = (performance.now() - started) / 1000;
        assertAlive(...instances);
        const events = each.reduce((sum, r) => sum + r.events, 0);
        acknowledged += events;
        slack += connections * BATCH;
        return {
          events,
          perSecond: each.reduce((sum, r) => sum + r.perSecond, 0),
          p50: medianOf(each, 'p50'),
          p99: Math.max(...each.map((r) => r.p99)),
          cpu: instances.reduce((sum, server, i) => sum + (cpuSeconds(server.pid) - cpuBefore[i]), 0) / elapsed,
        };
      },
    });
    const contenders = [bare, locked, ...connectionCounts.map(posting)];
    const options = { ...ctx.options, roundSeconds: Math.max(ctx.options.roundSeconds, MIN_ROUND_SECONDS) };
    const results = await alternate(contenders, { ...ctx, options });
    const ceiling = results.get(bare.name);
    const rows = [];
    const targets = [];
    const ratioLines = [];
    for (const connections of connectionCounts) {
      const mine = results.get(`paywalld ×2, ${connections} conns`);
      const vsBare = ratios(mine, ceiling, 'perSecond');
      rows.push(
        row(`PostgreSQL events, 2 instances, ${connections} conns — vs bare batched INSERT`, {
          paywalld: f.perSecond(medianOf(mine, 'perSecond'), 'events'),
          baseline: f.perSecond(medianOf(ceiling, 'perSecond'), 'events'),
          ratio: f.ratio(vsBare.median),
          p50: f.ms(medianOf(mine, 'p50')),
          p99: f.ms(medianOf(mine, 'p99')),
        }),
      );
      ratioLines.push(`  ratio per round at ${connections} connections: ${f.list(vsBare.perRound, f.ratio)}`);
      targets.push({
        text: `PostgreSQL events through 2 instances ≥ 0.5 × a bare batched INSERT (${connections} connections)`,
        measured: f.ratio(vsBare.median),
        met: vsBare.median >= 0.5,
      });
    }
    const details = [
      `PostgreSQL events: ${BATCH} events per request, two wrk at once (half the connections each) against instances A and B on one database, rounds of ${options.roundSeconds} s;`,
      `  the baseline inserts the same rows into the same table from ${BARE_CONNECTIONS} connections, ${f.count(BARE_ROWS)} rows per transaction, no events lock.`,
      '  CPU = the share of a core used by the baseline process, or by both instances together (PostgreSQL not counted).',
      ...contenders.map((c) => {
        const r = results.get(c.name);
        return `    ${c.name.padEnd(30)} ${f.list(r, (x) => f.perSecond(x.perSecond, 'events'))}  CPU ${f.list(r, (x) => f.percent(x.cpu))}`;
      }),
      ...ratioLines,
    ];
    return { rows, details, targets };
  }).then(async (result) => {
    const stored = await withPostgres(url, async (sql) => Number((await sql`SELECT count(*) AS n FROM events`)[0].n));
    assertStored(stored - bareRows, acknowledged, slack);
    result.details.push(
      `  stored afterwards: ${f.count(stored - bareRows)} events for ${f.count(acknowledged)} acknowledged (all present), besides the baseline's ${f.count(bareRows)}`,
    );
    return result;
  });
}
