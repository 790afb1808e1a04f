/**
 * Scenario 7: resolve latency while a flood of identify requests (each a
 * new link) arrives, against the same resolve load alone: issue 31,
 * finding 8 measured resolve p50 going from 1.6 ms to 8–105 ms under 16
 * identify connections when every identify committed on the request
 * thread. Identify now hands its link to the writer thread, which commits
 * the links that arrived meanwhile in one transaction. Both wrk processes
 * share the load core; every non-2xx answer fails the scenario, and every
 * acknowledged link must be stored.
 */
import { checkingAnswers } from '../lib/answers.mjs';
import { openSqlite } from '../lib/events.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld } from '../lib/paywalld.mjs';
import { alternate, medianOf } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { ScenarioError, wrk } from '../lib/wrk.mjs';
import { describeRequests, resolving } from './resolve.mjs';

/** The identify flood starts this long before resolve is measured, and lasts a second longer than it. */
const LEAD_MS = 300;

export async function identify(ctx) {
  const paywalld = await servingPaywalld(ctx, ctx.dir('identify'));
  paywalld.name = 'paywalld';
  const { resolveConnections, identifyConnections } = ctx.options.identify;
  const resolve = (seconds) => resolving(ctx, paywalld, paywalld.project.sdk, { connections: resolveConnections, seconds });
  const flood = (seconds) =>
    wrk({ url: paywalld.url, script: 'identify.lua', scriptArgs: [paywalld.project.sdk, ctx.nonce()], connections: identifyConnections, seconds });
  const linkRates = [];
  let acknowledged = 0;
  let inFlight = 0;
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
      name: 'resolve during an identify flood',
      describe: (r) => `${describeRequests(r)}  (identify ${f.perSecond(r.linksPerSecond, 'links')})`,
      run: async (seconds, round) => {
        const { result, linked } = await checkingAnswers(paywalld, async () => {
          const links = flood(seconds + 1);
          await new Promise((resolve) => setTimeout(resolve, LEAD_MS));
          const [resolved, posted] = await Promise.all([resolve(seconds), links]);
          return { result: resolved, linked: posted, requests: resolved.requests + posted.requests };
        });
        assertAlive(paywalld);
        acknowledged += linked.requests;
        inFlight += identifyConnections;
        if (round !== 'warmup') linkRates.push(linked.perSecond);
        return { ...result, linksPerSecond: linked.perSecond };
      },
    };
    const results = await alternate([alone, during], ctx);
    const [solo, busy] = [results.get(alone.name), results.get(during.name)];
    const p50 = medianOf(busy, 'p50');
    return {
      rows: [
        row(`identify: resolve (${resolveConnections} conns) during an identify flood (${identifyConnections} conns) — vs resolve alone`, {
          paywalld: f.perSecond(medianOf(busy, 'perSecond'), 'req'),
          baseline: f.perSecond(medianOf(solo, 'perSecond'), 'req'),
          p50: f.ms(p50),
          p99: f.ms(medianOf(busy, 'p99')),
        }),
      ],
      details: [
        `identify: resolve ${resolveConnections} connections, identify ${identifyConnections} connections (a new link each), both wrk on the load core.`,
        `  resolve alone: p50 ${f.ms(medianOf(solo, 'p50'))}, p99 per round ${f.list(solo, (r) => f.ms(r.p99))}`,
        `  during the flood: p50 ${f.ms(p50)}, p99 per round ${f.list(busy, (r) => f.ms(r.p99))}; links/s per round ${f.list(linkRates, f.count)}`,
      ],
      targets: [{ text: 'resolve p50 < 2 ms during an identify flood (issue 31: 8–105 ms before)', measured: f.ms(p50), met: p50 < 2 }],
    };
  }).then((result) => {
    // The server has stopped: every acknowledged link must be stored (those in flight when wrk stopped may be too).
    const db = openSqlite(paywalld.file, ctx.dist.sqliteAddon);
    const stored = db.prepare('SELECT count(*) FROM user_links').pluck().get();
    db.close();
    if (stored < acknowledged || stored > acknowledged + inFlight) {
      throw new ScenarioError(
        `the database holds ${f.count(stored)} links, but wrk saw ${f.count(acknowledged)} acknowledged (+ at most ${inFlight} in flight)`,
      );
    }
    result.details.push(`  stored afterwards: ${f.count(stored)} links for ${f.count(acknowledged)} acknowledged (all present)`);
    return result;
  });
}
