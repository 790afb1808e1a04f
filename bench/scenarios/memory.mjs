/**
 * Scenario 4: resident memory of a paywalld after resolving for N distinct
 * users (every request a user id never seen before), and of another after
 * ingesting N events; the baseline is each server's RSS once started and
 * loaded with the fixture. wrk runs in chunks until the count is reached.
 * The events server is measured twice: the moment wrk stops (the high-water
 * mark of ingestion: requests in flight, the pending checkpoint, young
 * generations full of short-lived objects) and SETTLE_MS later, once the
 * writer has written its checkpoint (every 5 s), collected the burst's
 * garbage and the process is idle: what a server holds for that much data.
 */

import { BATCH } from '../lib/events.mjs';
import { PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld } from '../lib/paywalld.mjs';
import { peakRss, rss } from '../lib/processes.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { wrk } from '../lib/wrk.mjs';
import { assertStored, ingest, storedEvents } from './events.mjs';

const RSS_TARGET = 200 * 1024 * 1024;
/** After ingesting 10 M events from 1 M users: the writer keeps a users dictionary and sets in memory. */
const EVENTS_RSS_TARGET = 300 * 1024 * 1024;
const MAX_CHUNK_SECONDS = 15;
/**
 * Three checkpoint intervals of the writer (CHECKPOINT_EVERY_MS): the last
 * events are checkpointed, and the first interval without events has passed
 * (the writer then collects the garbage of the burst).
 */
const SETTLE_MS = 15_000;

/**
 * Runs wrk in chunks until the counts they report add up to `total`: a short
 * first chunk measures the rate, the next ones are sized from it (at most
 * MAX_CHUNK_SECONDS each, so progress shows).
 */
async function until(total, chunk) {
  let done = 0;
  let seconds = 1;
  const runs = [];
  while (done < total) {
    const result = await chunk(seconds);
    done += result.count;
    runs.push(result);
    const rate = result.count / result.seconds;
    seconds = Math.min(MAX_CHUNK_SECONDS, Math.max(1, Math.ceil(((total - done) * 1.05) / rate)));
  }
  return { done, runs };
}

export async function memory(ctx) {
  const { users, events: eventCount, eventUsers } = ctx.options.memory;
  const resolver = await servingPaywalld(ctx, ctx.dir('memory-resolve'));
  resolver.name = 'paywalld (resolve)';
  const ingester = await servingPaywalld(ctx, ctx.dir('memory-events'));
  ingester.name = 'paywalld (events)';
  return measuring([resolver, ingester], async () => {
    const idle = { resolve: rss(resolver.pid), events: rss(ingester.pid) };
    ctx.log(`  idle RSS ${f.mb(idle.resolve)} / ${f.mb(idle.events)}; resolving for ${f.count(users)} distinct users`);
    const resolving = await until(users, async (seconds) => {
      const result = await wrk({
        url: resolver.url,
        script: 'resolve.lua',
        scriptArgs: [resolver.project.sdk, PAYWALL_ID, '0', 'distinct', ctx.nonce()],
        connections: ctx.options.resolve.connections,
        seconds,
      });
      assertAlive(resolver);
      return { ...result, count: result.requests };
    });
    const afterUsers = rss(resolver.pid);
    ctx.log(`  ${f.count(resolving.done)} distinct users: RSS ${f.mb(afterUsers)}; ingesting ${f.count(eventCount)} events from ${f.count(eventUsers)} users`);
    let slack = 0;
    const ingesting = await until(eventCount, async (seconds) => {
      const connections = ctx.options.events.connections[0];
      const result = await ingest(ctx, ingester, { connections, seconds, users: eventUsers });
      assertAlive(ingester);
      slack += connections * BATCH;
      return { ...result, count: result.events };
    });
    const afterEvents = rss(ingester.pid);
    const peaks = { resolve: peakRss(resolver.pid), events: peakRss(ingester.pid) };
    ctx.log(`  ${f.count(ingesting.done)} events: RSS ${f.mb(afterEvents)}; idle for ${SETTLE_MS / 1000} s`);
    // A measurement at a set time after the load, not a synchronisation: nothing waits for this to pass.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    assertAlive(ingester);
    const settled = rss(ingester.pid);
    ctx.log(`  ${SETTLE_MS / 1000} s later: RSS ${f.mb(settled)}`);
    const median = (runs, field) => runs.map((r) => r[field]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    return {
      rows: [
        row(`memory after resolving for ${f.count(resolving.done)} distinct users — vs idle`, {
          paywalld: f.mb(afterUsers),
          baseline: f.mb(idle.resolve),
          ratio: f.ratio(afterUsers / idle.resolve),
          p50: f.ms(median(resolving.runs, 'p50')),
          p99: f.ms(median(resolving.runs, 'p99')),
        }),
        row(`memory after ingesting ${f.count(ingesting.done)} events from ${f.count(eventUsers)} users — vs idle`, {
          paywalld: f.mb(afterEvents),
          baseline: f.mb(idle.events),
          ratio: f.ratio(afterEvents / idle.events),
          p50: f.ms(median(ingesting.runs, 'p50')),
          p99: f.ms(median(ingesting.runs, 'p99')),
        }),
        row(`memory ${SETTLE_MS / 1000} s after ingesting them (checkpointed, idle) — vs idle`, {
          paywalld: f.mb(settled),
          baseline: f.mb(idle.events),
          ratio: f.ratio(settled / idle.events),
        }),
      ],
      details: [
        `memory: RSS from /proc/PID/status (VmRSS) of the paywalld process, its event-writer thread included.`,
        `  resolve: ${f.count(resolving.done)} requests, each a new userId, in ${resolving.runs.length} wrk runs; peak RSS ${f.mb(peaks.resolve)}`,
        `  events: ${f.count(ingesting.done)} events acknowledged in ${ingesting.runs.length} wrk runs; RSS ${f.mb(afterEvents)} when wrk stopped, ${f.mb(settled)} ${SETTLE_MS / 1000} s later; peak RSS ${f.mb(peaks.events)}`,
      ],
      targets: [
        {
          text: `RSS < 200 MB after 1 M distinct users${users >= 1_000_000 ? '' : ` (this run: ${f.count(users)})`}`,
          measured: f.mb(afterUsers),
          met: users >= 1_000_000 || afterUsers >= RSS_TARGET ? afterUsers < RSS_TARGET : undefined,
        },
        // Judged the moment ingestion ends, the stricter reading of "after ingesting"; the settled figure is reported beside it.
        {
          text: `RSS < 300 MB after 10 M events from 1 M users, when the load stops${eventCount >= 10_000_000 ? '' : ` (this run: ${f.count(eventCount)} events; 10 M with --full)`}`,
          measured: `${f.mb(afterEvents)} (${f.mb(settled)} ${SETTLE_MS / 1000} s later)`,
          met: eventCount >= 10_000_000 || afterEvents >= EVENTS_RSS_TARGET ? afterEvents < EVENTS_RSS_TARGET : undefined,
        },
      ],
      acknowledged: ingesting.done,
      slack,
    };
  }).then((result) => {
    const stored = storedEvents(ctx, ingester.file);
    assertStored(stored, result.acknowledged, result.slack);
    return result;
  });
}
