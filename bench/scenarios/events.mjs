/**
 * Scenario 2: POST /api/sdk/events, 100 events per request, at several
 * connection counts, against a bare better-sqlite3 loop writing the same rows
 * with the server's statements in 1,000-row transactions (both at
 * synchronous=FULL). Afterwards the server's database must hold every event
 * wrk saw acknowledged: a 200 that silently rejected events would otherwise
 * count as throughput.
 */
import path from 'node:path';
import { BATCH, openSqlite } from '../lib/events.mjs';
import { PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { createDatabase, servingPaywalld } from '../lib/paywalld.mjs';
import { pinning, run, withCpu } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { ScenarioError, wrk } from '../lib/wrk.mjs';
import { USERS } from './resolve.mjs';

const BASELINE = path.join(import.meta.dirname, '..', 'baselines', 'sqlite-insert.mjs');

export const describeEvents = (r) =>
  `${f.perSecond(r.perSecond, 'events')}${r.p99 === undefined ? '' : `  p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}`}${r.cpu === undefined ? '' : `  CPU ${f.percent(r.cpu)}`}`;

/** wrk posting batches to a paywalld; perSecond counts events, not requests. */
export async function ingest(ctx, server, { connections, seconds }) {
  const result = await wrk({
    url: server.url,
    script: 'events.lua',
    scriptArgs: [server.project.sdk, PAYWALL_ID, String(USERS), ctx.nonce(), String(BATCH)],
    connections,
    seconds,
  });
  return { ...result, events: result.requests * BATCH, perSecond: result.perSecond * BATCH };
}

/** Rows in a stopped server's events table. */
export function storedEvents(ctx, file) {
  const db = openSqlite(file, ctx.dist.sqliteAddon);
  try {
    return db.prepare('SELECT count(*) FROM events').pluck().get();
  } finally {
    db.close();
  }
}

/**
 * Every acknowledged event must be stored; events of requests still in flight
 * when wrk stopped may be stored too, so at most one batch per connection more.
 */
export function assertStored(stored, acknowledged, slack) {
  if (stored < acknowledged || stored > acknowledged + slack) {
    throw new ScenarioError(`the database holds ${f.count(stored)} events, but wrk saw ${f.count(acknowledged)} acknowledged (+ at most ${f.count(slack)} in flight)`);
  }
}

export async function events(ctx) {
  const dir = ctx.dir('events');
  const paywalld = await servingPaywalld(ctx, dir);
  paywalld.name = 'paywalld';
  const { connections: connectionCounts } = ctx.options.events;
  let acknowledged = 0;
  let slack = 0;
  /** A bare better-sqlite3 loop on a database of its own: `server` statements and roll-ups, or the `raw` table only. */
  const bareLoop = async (name, mode) => {
    const file = path.join(dir, `baseline-${mode}.db`);
    const { projectId } = await createDatabase(ctx.dist, file);
    return {
      name,
      describe: describeEvents,
      run: async (seconds) => {
        const args = [BASELINE, file, ctx.dist.sqliteAddon, projectId, PAYWALL_ID, String(seconds), ctx.nonce(), mode];
        const { stdout } = await run(pinning.server, process.execPath, args);
        const { rows, seconds: elapsed, cpu } = JSON.parse(stdout.trim().split('\n').at(-1));
        return { events: rows, perSecond: rows / elapsed, cpu };
      },
    };
  };
  const baseline = await bareLoop('bare better-sqlite3', 'server');
  const raw = await bareLoop('bare, events table only', 'raw');
  return measuring([paywalld], async () => {
    const posting = (connections) => ({
      name: `paywalld, ${connections} conns`,
      describe: describeEvents,
      run: async (seconds) => {
        const result = await withCpu(paywalld.pid, () => ingest(ctx, paywalld, { connections, seconds }));
        assertAlive(paywalld);
        acknowledged += result.events;
        slack += connections * BATCH;
        return result;
      },
    });
    const results = await alternate([baseline, raw, ...connectionCounts.map(posting)], ctx);
    const bare = results.get(baseline.name);
    const bareRaw = results.get(raw.name);
    const rows = [];
    const details = [
      `events: ${BATCH} events per request; baselines: 1,000-row transactions at synchronous=FULL, with the server's statements and roll-ups,`,
      `  and (for comparison only) into the events table alone, without the roll-ups.`,
      `  bare better-sqlite3 events/s per round: ${f.list(bare, (r) => f.count(r.perSecond))}; CPU ${f.percent(medianOf(bare, 'cpu'))}`,
      `  bare, events table only, events/s per round: ${f.list(bareRaw, (r) => f.count(r.perSecond))}; CPU ${f.percent(medianOf(bareRaw, 'cpu'))}`,
    ];
    const targets = [];
    let fastest;
    for (const connections of connectionCounts) {
      const mine = results.get(`paywalld, ${connections} conns`);
      const vsBare = ratios(mine, bare, 'perSecond');
      if (!fastest || medianOf(mine, 'perSecond') > medianOf(fastest.mine, 'perSecond')) fastest = { connections, mine };
      rows.push(
        row(`events, ${connections} conns — vs bare better-sqlite3, same statements and roll-ups`, {
          paywalld: f.perSecond(medianOf(mine, 'perSecond'), 'events'),
          baseline: f.perSecond(medianOf(bare, 'perSecond'), 'events'),
          ratio: f.ratio(vsBare.median),
          p50: f.ms(medianOf(mine, 'p50')),
          p99: f.ms(medianOf(mine, 'p99')),
        }),
      );
      details.push(
        `  paywalld at ${connections} connections, events/s per round: ${f.list(mine, (r) => f.count(r.perSecond))}; ratio per round ${f.list(vsBare.perRound, f.ratio)}; server CPU ${f.percent(medianOf(mine, 'cpu'))}`,
      );
      targets.push({ text: `events ≥ 0.5 × bare better-sqlite3 (${connections} connections)`, measured: f.ratio(vsBare.median), met: vsBare.median >= 0.5 });
    }
    const vsRaw = ratios(fastest.mine, bareRaw, 'perSecond');
    rows.push(
      row(`events, ${fastest.connections} conns — vs bare better-sqlite3, events table only (no roll-ups)`, {
        paywalld: f.perSecond(medianOf(fastest.mine, 'perSecond'), 'events'),
        baseline: f.perSecond(medianOf(bareRaw, 'perSecond'), 'events'),
        ratio: f.ratio(vsRaw.median),
        p50: f.ms(medianOf(fastest.mine, 'p50')),
        p99: f.ms(medianOf(fastest.mine, 'p99')),
      }),
    );
    return { rows, details, targets };
  }).then((result) => {
    // The server has stopped: its shutdown committed whatever was still queued.
    const stored = storedEvents(ctx, paywalld.file);
    assertStored(stored, acknowledged, slack);
    result.details.push(`  stored afterwards: ${f.count(stored)} events for ${f.count(acknowledged)} acknowledged (all present)`);
    return result;
  });
}
