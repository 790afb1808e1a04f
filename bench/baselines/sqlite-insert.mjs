// The baselines of the events scenario: a bare better-sqlite3 loop writing
// the rows the server would store with one of the candidate designs of
// bench/lib/events.mjs (eventStore), 1,000 rows per transaction at
// synchronous=FULL in WAL mode, on a database `paywalld migrate` created
// (the server's schema). DESIGN "noindex" is the ceiling: the append alone.
// Runs for SECONDS and prints {"rows":…,"seconds":…,"cpu":…,"written":…} as
// its last line (cpu: the share of a core it used; written: bytes it wrote,
// the last checkpoint of the "checkpointed" design included).
// Usage: node sqlite-insert.mjs DB ADDON PROJECT_ID PAYWALL_ID SECONDS NONCE DESIGN
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { BATCH, batchTime, eventRow, eventStore, openSqlite } from '../lib/events.mjs';

const [file, addon, projectId, paywallId, seconds, nonce, mode] = process.argv.slice(2);
const ROWS_PER_TRANSACTION = 1000;

const db = openSqlite(file, addon);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
const store = eventStore(db, mode);
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
  for (let i = 0; i < ROWS_PER_TRANSACTION; i++, n++) {
    const row = eventRow(stream, n, batchTime(now, i % BATCH, BATCH), now);
    // Ids as SDKs make them (random UUIDs): a design keyed by the id alone writes randomly, as it would in production.
    row[7] = randomUUID();
    rows.push(row);
  }
  stored += store.write(rows);
}
store.flush();
const elapsed = (performance.now() - start) / 1000;
const { user, system } = process.cpuUsage(cpuBefore);
const written = writtenBytes() - writtenBefore;
db.close();
if (stored !== n) {
  console.error(`stored ${stored} of ${n} rows: the ids were not unique`);
  process.exit(1);
}
console.log(JSON.stringify({ rows: stored, seconds: elapsed, cpu: (user + system) / 1e6 / elapsed, written }));
