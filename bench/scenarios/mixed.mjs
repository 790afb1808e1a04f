/**
 * Scenario 5: resolve latency on a paywalld that is ingesting events at full
 * speed, against the same resolve load alone. Both wrk processes share the
 * load core, so resolve throughput here also says how much of that core the
 * event load generator took; the latency figures are the point. Every
 * non-2xx answer on any route, counted in paywalld's /metrics, fails it.
 */
import { checkingAnswers } from '../lib/answers.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld } from '../lib/paywalld.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { ingest } from './events.mjs';
import { describeRequests, resolving } from './resolve.mjs';

/** The event load starts this long before resolve is measured, and lasts a second longer than it. */
const LEAD_MS = 300;

export async function mixed(ctx) {
  const paywalld = await servingPaywalld(ctx, ctx.dir('mixed'));
  paywalld.name = 'paywalld';
  const { resolveConnections, eventConnections } = ctx.options.mixed;
  const resolve = (seconds) => resolving(ctx, paywalld, paywalld.project.sdk, { connections: resolveConnections, seconds });
  const ingestRates = [];
  return measuring([paywalld], async () => {
    const alone = {
      name: 'resolve alone',
      describe: describeRequests,
      run: async (seconds) => {
        const result = await checkingAnswers(paywalld, () => resolve(seconds));
        assertAlive(paywalld);
        return result;
      },
    };
    const during = {
      name: 'resolve while ingesting',
      describe: (r) => `${describeRequests(r)}  (events ${f.perSecond(r.eventsPerSecond, 'events')})`,
      run: async (seconds, round) => {
        const { result, ingested } = await checkingAnswers(paywalld, async () => {
          const events = ingest(ctx, paywalld, { connections: eventConnections, seconds: seconds + 1 });
          await new Promise((resolve) => setTimeout(resolve, LEAD_MS));
          const [resolved, posted] = await Promise.all([resolve(seconds), events]);
          // The server's 2xx answers, over both routes, must cover every response either wrk counted.
          return { result: resolved, ingested: posted, requests: resolved.requests + posted.requests };
        });
        assertAlive(paywalld);
        if (round !== 'warmup') ingestRates.push(ingested.perSecond);
        return { ...result, eventsPerSecond: ingested.perSecond };
      },
    };
    const results = await alternate([alone, during], ctx);
    const [solo, busy] = [results.get(alone.name), results.get(during.name)];
    const throughput = ratios(busy, solo, 'perSecond');
    const p99 = medianOf(busy, 'p99');
    return {
      rows: [
        row(`mixed: resolve (${resolveConnections} conns) while ingesting (${eventConnections} conns) — vs resolve alone`, {
          paywalld: f.perSecond(medianOf(busy, 'perSecond'), 'req'),
          baseline: f.perSecond(medianOf(solo, 'perSecond'), 'req'),
          ratio: f.ratio(throughput.median),
          p50: f.ms(medianOf(busy, 'p50')),
          p99: f.ms(p99),
        }),
      ],
      details: [
        `mixed: resolve ${resolveConnections} connections, events ${eventConnections} connections × 100 events, both wrk on the load core.`,
        `  resolve alone: p50 ${f.ms(medianOf(solo, 'p50'))}, p99 per round ${f.list(solo, (r) => f.ms(r.p99))}`,
        `  while ingesting: p50 ${f.ms(medianOf(busy, 'p50'))}, p99 per round ${f.list(busy, (r) => f.ms(r.p99))}; events/s per round ${f.list(ingestRates, f.count)}`,
      ],
      targets: [{ text: 'resolve p99 < 5 ms while ingestion runs at full speed', measured: f.ms(p99), met: p99 < 5 }],
    };
  });
}
