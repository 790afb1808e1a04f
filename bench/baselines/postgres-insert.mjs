// The baseline of the PostgreSQL events scenario: a bare loop writing the
// rows the server would store into the same events table of the same
// database, CONNECTIONS connections each committing ROWS-row transactions of
// one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING` (the server's
// statement, src/events/writer/postgres/sink.ts), without the events lock,
// the catch-up, the notification or any request to answer. With LOCK
// "lock", each transaction takes the events lock first (what serializing the
// commits alone costs).
// Runs for SECONDS and prints {"rows":…,"seconds":…,"cpu":…} as its last line.
// Usage: node postgres-insert.mjs URL PROJECT_ID PAYWALL_ID SECONDS NONCE CONNECTIONS ROWS LOCK
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { BATCH, batchTime, eventRow } from '../lib/events.mjs';

const [url, projectId, paywallId, seconds, nonce, connections, rowsPerTransaction, lock] = process.argv.slice(2);
/** ADVISORY_LOCKS.events of src/db/postgres/advisory-locks.ts (the baselines run without tsx). */
const EVENTS_LOCK = ((0x7061_7977n << 32n) + 2n).toString();
const COLUMNS = [
  'project_id',
  'paywall_id',
  'type',
  'ts',
  'client_ts',
  'sent_at',
  'received_at',
  'event_id',
  'user_id',
  'variant_id',
  'product_id',
  'properties',
];
const TYPES = ['text', 'text', 'text', 'int8', 'int8', 'int8', 'int8', 'text', 'text', 'text', 'text', 'text'];
const INSERT = `INSERT INTO events (${COLUMNS.join(', ')})
  SELECT * FROM unnest(${TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
  ON CONFLICT (project_id, client_ts, event_id) WHERE event_id IS NOT NULL DO NOTHING`;

const stream = { projectId, paywallId, users: 100_000, idPrefix: `${nonce}-` };
let n = 0;
let stored = 0;
const cpuBefore = process.cpuUsage();
const start = performance.now();
const deadline = start + Number(seconds) * 1000;

async function loop() {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`SELECT 1`;
  while (performance.now() < deadline) {
    const now = Date.now();
    const columns = COLUMNS.map(() => []);
    for (let i = 0; i < Number(rowsPerTransaction); i++, n++) {
      const row = eventRow(stream, n, batchTime(now, i % BATCH, BATCH), now);
      row[7] = randomUUID();
      for (const [c, column] of columns.entries()) column.push(row[c] ?? null);
    }
    // Awaited first, then added: `stored += await …` would read `stored` before the other loop's additions.
    const inserted =
      lock === 'lock'
        ? await sql.begin(async (tx) => {
            await tx.unsafe('SELECT pg_advisory_xact_lock($1)', [EVENTS_LOCK]);
            return (await tx.unsafe(INSERT, columns)).count;
          })
        : (await sql.unsafe(INSERT, columns)).count;
    stored += inserted;
  }
  await sql.end();
}
await Promise.all(Array.from({ length: Number(connections) }, loop));
const elapsed = (performance.now() - start) / 1000;
const { user, system } = process.cpuUsage(cpuBefore);
console.log(JSON.stringify({ rows: stored, seconds: elapsed, cpu: (user + system) / 1e6 / elapsed }));
