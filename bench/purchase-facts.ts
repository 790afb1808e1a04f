// What the purchases.* facts cost in memory (docs/guide/placements.md, "What the
// server knows about a user"; issue 37's target: under 60 MB for 1 M users
// with purchases): the facts of one project (src/placements/facts/) folded
// from USERS users' purchase histories, as a server folds them at start,
// then measured after a full collection: the heap, the typed arrays
// (ArrayBuffers) and their sum, per user. The histories: every user a paid
// subscription (a purchase and a renewal), a third expired since, a fifth
// after a trial, one in twenty with a second subscription and one in ten an
// anonymous id linked to them (an id more in the table) which also bought.
// It also times the fold and a factsOf lookup (the resolve path's cost).
// Usage: node --expose-gc --import tsx bench/purchase-facts.ts [USERS]
import { ProjectFacts } from '../src/placements/facts/project-facts.ts';

const USERS = Number(process.argv[2] ?? 1_000_000);
const DAY = 86_400_000;
const NOW = Date.now();
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function measure(): { heap: number; buffers: number } {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, buffers: usage.arrayBuffers };
}

const before = measure();
const started = performance.now();
const facts = new ProjectFacts();
let records = 0;
const fold = (userId: string, type: string, daysAgo: number, product: string, subscription: string) => {
  facts.fold({ userId, type, ts: NOW - daysAgo * DAY, product, subscription });
  records++;
};
for (let i = 0; i < USERS; i++) {
  const user = `user-${i.toString(36)}-${(i * 7919) % 1000}`;
  const product = i % 2 ? 'pro_monthly' : 'pro_annual';
  if (i % 5 === 0) fold(user, 'trial_started', 60, product, `otx-${i}`);
  fold(user, i % 5 === 0 ? 'trial_converted' : 'initial_purchase', 50, product, `otx-${i}`);
  fold(user, 'renewal', 20, product, `otx-${i}`);
  if (i % 3 === 0) fold(user, 'expiration', 10, product, `otx-${i}`);
  if (i % 20 === 0) fold(user, 'initial_purchase', 5, 'pro_lifetime', `otx-${i}-b`);
  if (i % 10 === 0) {
    const anonymous = `anon-${i.toString(36)}`;
    fold(anonymous, 'non_renewing_purchase', 70, 'coins_100', `tx-${i}`);
    facts.link(anonymous, user);
  }
}
const foldMs = performance.now() - started;
const after = measure();
const heap = after.heap - before.heap;
const buffers = after.buffers - before.buffers;

const lookups = 1_000_000;
const lookupStarted = performance.now();
let subscribers = 0;
for (let n = 0; n < lookups; n++) {
  const i = (n * 104_729) % USERS;
  if (facts.factsOf(`user-${i.toString(36)}-${(i * 7919) % 1000}`, NOW).is_subscriber) subscribers++;
}
const lookupNs = ((performance.now() - lookupStarted) * 1e6) / lookups;

const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));
console.log(
  JSON.stringify({
    users: USERS,
    ids: facts.size,
    records,
    fold_ms: Math.round(foldMs),
    heap_mb: mb(heap),
    array_buffers_mb: mb(buffers),
    total_mb: mb(heap + buffers),
    bytes_per_user: Math.round((heap + buffers) / USERS),
    facts_of_ns: Math.round(lookupNs),
    subscribers_seen: subscribers,
  }),
);
