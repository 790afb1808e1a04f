// The ceiling of the events scenario: a bare better-sqlite3 loop writing the
// rows the server would store, with the server's statements and roll-ups
// (bench/lib/events.mjs), 1,000 rows per transaction at synchronous=FULL in
// WAL mode, on a database `paywalld migrate` created (the server's schema).
// With MODE "raw" it writes the events table only, without roll-ups; with
// "noindex" the events table without its two secondary indexes either (they
// are dropped from this database first): the configuration of the issue's
// prototype figure.
// Runs for SECONDS and prints {"rows":…,"seconds":…,"cpu":…,"written":…} as
// its last line (cpu: the share of a core it used; written: bytes it wrote).
// Usage: node sqlite-insert.mjs DB ADDON PROJECT_ID PAYWALL_ID SECONDS NONCE [server|raw|noindex]
import fs from 'node:fs';
import { BATCH, batchTime, eventRow, openSqlite, rawEventsOnly, sinkLikeTheServer } from '../lib/events.mjs';

const [file, addon, projectId, paywallId, seconds, nonce, mode = 'server'] = process.argv.slice(2);
const ROWS_PER_TRANSACTION = 1000;

const db = openSqlite(file, addon);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
if (mode === 'noindex') {
  const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL").pluck().all();
  for (const name of indexes) db.exec(`DROP INDEX "${name}"`);
}
const write = mode === 'server' ? sinkLikeTheServer(db) : rawEventsOnly(db, { dedup: mode !== 'noindex' });
const stream = { projectId, paywallId, users: 100_000, idPrefix: `${nonce}-` };

const writtenBytes = () => Number(/^write_bytes: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1]);
let n = 0;
let stored = 0;
const writtenBefore = writtenBytes();
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
const written = writtenBytes() - writtenBefore;
db.close();
if (stored !== n) {
  console.error(`stored ${stored} of ${n} rows: the ids were not unique`);
  process.exit(1);
}
console.log(JSON.stringify({ rows: stored, seconds: elapsed, cpu: (user + system) / 1e6 / elapsed, written }));
