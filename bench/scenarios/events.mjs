/**
 * Scenario 2: POST /api/sdk/events, 100 events per request, at several
 * connection counts, against bare better-sqlite3 loops writing the same rows
 * in 1,000-row transactions (all at synchronous=FULL) with each candidate
 * storage design (bench/lib/events.mjs, eventStore): the append alone (the
 * ceiling the target is measured against), the inline indexes before
 * migration 5, the server's checkpointed design and its candidates. Bytes written to
 * storage per event are measured for every one. Afterwards the server's
 * database must hold every event wrk saw acknowledged: a 200 that silently
 * rejected events would otherwise count as throughput.
 */
import path from 'node:path';
import { BATCH, openSqlite } from '../lib/events.mjs';
import { PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { createDatabase, servingPaywalld } from '../lib/paywalld.mjs';
import { pinning, run, withUsage } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { ScenarioError, wrk } from '../lib/wrk.mjs';
import { USERS } from './resolve.mjs';

const BASELINE = path.join(import.meta.dirname, '..', 'baselines', 'sqlite-insert.mjs');

export const describeEvents = (r) =>
  `${f.perSecond(r.perSecond, 'events')}${r.p99 === undefined ? '' : `  p50 ${f.ms(r.p50)}  p99 ${f.ms(r.p99)}`}${r.cpu === undefined ? '' : `  CPU ${f.percent(r.cpu)}`}`;

/** wrk posting batches to a paywalld; perSecond counts events, not requests. */
export async function ingest(ctx, server, { connections, seconds, users = USERS }) {
  const result = await wrk({
    url: server.url,
    script: 'events.lua',
    scriptArgs: [server.project.sdk, PAYWALL_ID, String(users), ctx.nonce(), String(BATCH)],
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
    throw new ScenarioError(
      `the database holds ${f.count(stored)} events, but wrk saw ${f.count(acknowledged)} acknowledged (+ at most ${f.count(slack)} in flight)`,
    );
  }
}

export async function events(ctx) {
  const dir = ctx.dir('events');
  const paywalld = await servingPaywalld(ctx, dir);
  paywalld.name = 'paywalld';
  const { connections: connectionCounts } = ctx.options.events;
  let acknowledged = 0;
  let slack = 0;
  /** A bare better-sqlite3 loop on a database of its own (see bench/baselines/sqlite-insert.mjs for the designs). */
  const bareLoop = async (name, design) => {
    const file = path.join(dir, `baseline-${design}.db`);
    const { projectId } = await createDatabase(ctx.dist, file);
    return {
      name,
      describe: describeEvents,
      run: async (seconds) => {
        const args = [BASELINE, file, ctx.dist.sqliteAddon, projectId, PAYWALL_ID, String(seconds), ctx.nonce(), design];
        const { stdout } = await run(pinning.server, process.execPath, args);
        const { rows, seconds: elapsed, cpu, written } = JSON.parse(stdout.trim().split('\n').at(-1));
        return { events: rows, perSecond: rows / elapsed, cpu, written };
      },
    };
  };
  const ceiling = await bareLoop('bare, append only (ceiling)', 'noindex');
  const designs = [
    ceiling,
    await bareLoop('bare, checkpointed (server)', 'checkpointed'),
    await bareLoop('bare, text keys, JS fill (old)', 'text-js'),
    await bareLoop('bare, text keys, SQL fill', 'text-sql'),
    await bareLoop('bare, compact keys, JS fill', 'compact-js'),
    await bareLoop('bare, compact, SQL, 20 s', 'compact-sql-20s'),
    await bareLoop('bare, compact, SQL, 32 MB cache', 'compact-sql-cache32'),
    await bareLoop('bare, inline time+dedup (old)', 'inline-time'),
    await bareLoop('bare, inline dedup only', 'inline-dedup'),
    await bareLoop('bare, inline (project, id)', 'inline-id'),
  ];
  return measuring([paywalld], async () => {
    const posting = (connections) => ({
      name: `paywalld, ${connections} conns`,
      describe: describeEvents,
      run: async (seconds) => {
        const result = await withUsage(paywalld.pid, () => ingest(ctx, paywalld, { connections, seconds }));
        assertAlive(paywalld);
        acknowledged += result.events;
        slack += connections * BATCH;
        return result;
      },
    });
    const contenders = [...designs, ...connectionCounts.map(posting)];
    const results = await alternate(contenders, ctx);
    const bare = results.get(ceiling.name);
    /** Bytes written per event over every round together: the server's checkpoints (every 5 s) fall in some rounds only. */
    const writtenPerEvent = (r) => r.reduce((sum, x) => sum + x.written, 0) / r.reduce((sum, x) => sum + x.events, 0);
    const rows = [];
    const targets = [];
    const ratioLines = [];
    for (const connections of connectionCounts) {
      const mine = results.get(`paywalld, ${connections} conns`);
      const vsBare = ratios(mine, bare, 'perSecond');
      rows.push(
        row(`events, ${connections} conns — vs bare better-sqlite3, append only`, {
          paywalld: f.perSecond(medianOf(mine, 'perSecond'), 'events'),
          baseline: f.perSecond(medianOf(bare, 'perSecond'), 'events'),
          ratio: f.ratio(vsBare.median),
          p50: f.ms(medianOf(mine, 'p50')),
          p99: f.ms(medianOf(mine, 'p99')),
        }),
      );
      ratioLines.push(`  ratio per round at ${connections} connections: ${f.list(vsBare.perRound, f.ratio)}`);
      targets.push({
        text: `events ≥ 0.5 × the append-only ceiling (${connections} connections)`,
        measured: f.ratio(vsBare.median),
        met: vsBare.median >= 0.5,
      });
      const bytes = writtenPerEvent(mine);
      targets.push({ text: `events: ≤ 600 B written per event (${connections} connections)`, measured: `${f.count(Math.round(bytes))} B`, met: bytes <= 600 });
    }
    const details = [
      `events: ${BATCH} events per request from wrk; baselines write 1,000-row transactions at synchronous=FULL in WAL mode.`,
      '  what each wrote (median of rounds; written = bytes the process wrote to storage per event, over all rounds):',
      ...contenders.map((c) => {
        const r = results.get(c.name);
        const perCpuSecond = f.count(Math.round(medianOf(r, 'perSecond') / medianOf(r, 'cpu')));
        return `    ${c.name.padEnd(34)} ${f.perSecond(medianOf(r, 'perSecond'), 'events').padStart(18)}  CPU ${f.percent(medianOf(r, 'cpu')).padStart(5)}  ${perCpuSecond.padStart(9)} per CPU-s  written ${f.count(Math.round(writtenPerEvent(r))).padStart(6)} B/event`;
      }),
      ...ratioLines,
    ];
    return { rows, details, targets };
  }).then((result) => {
    // The server has stopped: its shutdown committed whatever was still queued.
    const stored = storedEvents(ctx, paywalld.file);
    assertStored(stored, acknowledged, slack);
    result.details.push(`  stored afterwards: ${f.count(stored)} events for ${f.count(acknowledged)} acknowledged (all present)`);
    return result;
  });
}
