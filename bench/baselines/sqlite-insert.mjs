// The ceiling of the events scenario: a bare better-sqlite3 loop writing the
// rows the server would store, with the server's statements and roll-ups
// (bench/lib/events.mjs), 1,000 rows per transaction at synchronous=FULL in
// WAL mode, on a database `paywalld migrate` created (the server's schema).
// With MODE "raw" it writes the events table only, without roll-ups.
// Runs for SECONDS and prints {"rows":…,"seconds":…,"cpu":…} as its last line
// (cpu: the share of a core it used).
// Usage: node sqlite-insert.mjs DB ADDON PROJECT_ID PAYWALL_ID SECONDS NONCE [server|raw]
import { BATCH, batchTime, eventRow, openSqlite, rawEventsOnly, sinkLikeTheServer } from '../lib/events.mjs';

const [file, addon, projectId, paywallId, seconds, nonce, mode = 'server'] = process.argv.slice(2);
const ROWS_PER_TRANSACTION = 1000;

const db = openSqlite(file, addon);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
const write = mode === 'raw' ? rawEventsOnly(db) : sinkLikeTheServer(db);
const stream = { projectId, paywallId, users: 100_000, idPrefix: `${nonce}-` };

let n = 0;
let stored = 0;
const cpuBefore = process.cpuUsage();
const start = performance.now();
const deadline = start + Number(seconds) * 1000;
while (performance.now() < deadline) {
  const now = Date.now();
  const rows = [];
  for (let i = 0; i < ROWS_PER_TRANSACTION; i++, n++) rows.push(eventRow(stream, n, batchTime(now, i % BATCH, BATCH), now));
  stored += write(rows);
}
const elapsed = (performance.now() - start) / 1000;
const { user, system } = process.cpuUsage(cpuBefore);
db.close();
if (stored !== n) {
  console.error(`stored ${stored} of ${n} rows: the ids were not unique`);
  process.exit(1);
}
console.log(JSON.stringify({ rows: stored, seconds: elapsed, cpu: (user + system) / 1e6 / elapsed }));
