// What the writer thread's fold costs a results request (bench/notes/issue-32-resolve-and-results.md,
// "Results without a pass over the users"): a PhaseFold over one segment shaped as the results scenario
// loads it (bench/scenarios/results.mjs) at EVENTS events: a tenth as many users, each with one
// impression on the first day, six in ten of the loaded events more impressions, one in ten purchases
// without revenue (each such user buys only so, some before their impression), and every 20th user
// buying once in USD or EUR on the last day. Times, in ms on this thread:
//   first   the first update and answer (every entry read);
//   steady  the median answer after one new exposure of a new user (what the scenario measures, less
//           the HTTP, the clone and the statistics), over ROUNDS.
// Usage: node --import tsx bench/results-fold.ts [EVENTS] [ROUNDS]

import { PhaseFold } from '../src/analytics/fold/experiment-fold.ts';
import { Segment } from '../src/analytics/fold/experiment-log.ts';
import type { FoldQuery } from '../src/analytics/fold/fold-types.ts';

const EVENTS = Number(process.argv[2] ?? 10_000_000);
const ROUNDS = Number(process.argv[3] ?? 50);
const DAY_MS = 86_400_000;
const DAYS = 30;
const users = Math.round(EVENTS / 10);
const firstDay = Math.floor(Date.now() / DAY_MS) - DAYS + 1;
const from = firstDay * DAY_MS;

const segment = new Segment();
const control = segment.code(segment.variants, 'control');
const annual = segment.code(segment.variants, 'annual_first');
const usd = segment.code(segment.currencies, 'USD');
const eur = segment.code(segment.currencies, 'EUR');
const variant = (user: number) => (user % 2 === 0 ? control : annual);
for (let user = 0; user < users; user++) segment.exposures.push(user, from + (user % DAY_MS), variant(user), 0);
// The loader's stream (bench/lib/events.mjs): event n of user n · 7919 mod users, its type n mod 10.
for (let n = 0; n < EVENTS; n++) {
  const user = (n * 7919) % users;
  const ts = from + Math.floor((n / EVENTS) * DAYS * DAY_MS);
  const type = n % 10;
  if (type < 6) segment.exposures.push(user, ts, variant(user), 0);
  else if (type === 9) segment.addPurchase(user, ts, 0xffff, 0);
}
const lastTs = (firstDay + DAYS) * DAY_MS - 1000;
for (let user = 0; user < users; user += 20) {
  const dollars = user % 3 !== 0;
  segment.addPurchase(user, lastTs, dollars ? usd : eur, dollars ? [9.99, 49.99][user % 2]! : 8.99);
}

const query: FoldQuery = { from, to: null, variants: ['control', 'annual_first'], conversionWindowMs: null, winsorizePercentile: null };
const fold = new PhaseFold(segment, query);
let count = users;
const answer = () => {
  const start = performance.now();
  fold.update(count, [segment], []);
  const result = fold.result();
  return { ms: performance.now() - start, result };
};
const first = answer();
const exposed = first.result.variants.reduce((sum, figures) => sum + figures.exposed_users, 0);
const conversions = first.result.variants.reduce((sum, figures) => sum + figures.conversions, 0);
const times: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  segment.exposures.push(count++, Date.now(), control, 0);
  segment.version++;
  times.push(answer().ms);
}
times.sort((a, b) => a - b);
console.log(
  `${EVENTS} events, ${users} users: ${exposed} exposed, ${conversions} conversions, ${first.result.days.length} days; ` +
    `first ${first.ms.toFixed(0)} ms, steady median ${times[times.length >> 1]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)})`,
);
