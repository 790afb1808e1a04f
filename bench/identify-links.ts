// What identify links cost experiment results (bench/notes/experiment-results.md, "Identify
// links and results"): the writer thread's DerivedState and ResultInputs on a
// real database, with USERS exposed users of one paywall (every 20th buying)
// and LINKS links, of which a share joins an exposed anonymous id to a user
// the events know too, written on a connection of their own (as the server's
// is to the writer thread's). Times, each the median of ROUNDS:
//   check   the read of new records and links of a results request when there are none;
//   steady  a results request after one new event, no new link (the fold is brought up to date);
//   link    a results request after one new link (what `identify` costs the next results request);
//   another the first request of another fold of the project (here a conversion window), once the project's links are read.
// Usage: node --import tsx bench/identify-links.ts [USERS] [LINKS] [ROUNDS]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DerivedEvent } from '../src/analytics/derived-event.ts';
import type { FoldQuery } from '../src/analytics/fold/fold-types.ts';
import { DerivedState } from '../src/analytics/state.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { ResultInputs } from '../src/events/writer/result-inputs.ts';
import { openSqliteStorage } from '../src/storage/sqlite.ts';

const USERS = Number(process.argv[2] ?? 100_000);
const LINKS = Number(process.argv[3] ?? 100_000);
const ROUNDS = Number(process.argv[4] ?? 20);
const PROJECT = 'bench';
const PAYWALL = 'onboarding';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-links-'));
const db = openDatabase(path.join(dir, 'bench.db'));
migrate(db);
db.prepare("INSERT INTO projects (id, name, created_at) VALUES (?, 'bench', 0)").run(PROJECT);

const from = Date.now() - 86_400_000;
const state = new DerivedState();
const event = (userId: string, type: string, ts: number, variantId: string | null, revenue: number | null): DerivedEvent => ({
  projectId: PROJECT,
  paywallId: PAYWALL,
  type,
  ts,
  clientTs: ts,
  eventId: null,
  userId,
  variantId,
  audience: null,
  revenue,
  currency: revenue === null ? null : 'USD',
  placement: null,
});
for (let i = 0; i < USERS; i++) {
  const ts = from + (i % 80_000_000);
  state.apply(event(`anon-${i}`, 'screen_impression', ts, i % 2 === 0 ? 'control' : 'annual', null));
  if (i % 20 === 0) state.apply(event(`user-${i}`, 'purchase_complete', ts + 60_000, null, 9.99));
}
// Half the links join an exposed anonymous id to its buyer; the rest name ids the events never saw (other apps' devices, users not back yet).
// One every 20 s: 100,000 links are 23 days of sign-ins.
const linkedAt = (i: number) => Date.now() - (LINKS - i) * 20_000;
const insert = db.prepare(
  'INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq) VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM user_links))',
);
db.transaction(() => {
  for (let i = 0; i < LINKS; i++) {
    if (i % 2 === 0 && i < USERS) insert.run(PROJECT, `anon-${i}`, `user-${i}`, linkedAt(i));
    else insert.run(PROJECT, `device-${i}`, `member-${i}`, linkedAt(i));
  }
})();

const feed = new ResultInputs(openSqliteStorage(openDatabase(path.join(dir, 'bench.db'))));
const query: FoldQuery = { from, to: null, variants: ['control', 'annual'], conversionWindowMs: null, winsorizePercentile: null };
const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
/** What a results request costs the writer thread: the read of new records and links, then the fold. */
const time = async (work: () => void) => {
  const started = performance.now();
  await feed.refresh(PROJECT);
  work();
  return performance.now() - started;
};
const rounds = async (round: () => Promise<number>) => {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) times.push(await round());
  return median(times);
};

const first = await time(() => state.results(PROJECT, PAYWALL, null, query, feed));
const check = await rounds(() => time(() => undefined));
let extra = 0;
const steady = await rounds(() => {
  state.apply(event(`late-${extra++}`, 'screen_impression', from + 1000, 'control', null));
  return time(() => state.results(PROJECT, PAYWALL, null, query, feed));
});
let linked = 0;
const link = await rounds(() => {
  insert.run(PROJECT, `late-${linked}`, `late-user-${linked}`, linkedAt(LINKS + linked));
  linked++;
  return time(() => state.results(PROJECT, PAYWALL, null, query, feed));
});
const another = await time(() => state.results(PROJECT, PAYWALL, null, { ...query, conversionWindowMs: 86_400_000 }, feed));
const result = state.results(PROJECT, PAYWALL, null, query, feed);
console.log(
  JSON.stringify({
    users: USERS,
    links: LINKS,
    exposed: result.variants.reduce((sum, v) => sum + v.exposed_users, 0),
    conversions: result.variants.reduce((sum, v) => sum + v.conversions, 0),
    first_ms: Number(first.toFixed(1)),
    check_ms: Number(check.toFixed(2)),
    steady_ms: Number(steady.toFixed(2)),
    after_link_ms: Number(link.toFixed(1)),
    another_fold_ms: Number(another.toFixed(1)),
  }),
);
db.close();
fs.rmSync(dir, { recursive: true, force: true });
