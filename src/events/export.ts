import { openDatabase } from '../db/database.ts';

/** Lines are sent in chunks of about this many characters: one socket write each, never the whole result. */
const CHUNK_CHARS = 64 * 1024;

interface ExportRange {
  projectId: string;
  paywallId: string | undefined;
  from: number;
  to: number;
}

type Row = [
  eventId: string | null,
  type: string,
  paywallId: string,
  ts: number,
  clientTs: number,
  sentAt: number | null,
  receivedAt: number,
  userId: string | null,
  variantId: string | null,
  productId: string | null,
  properties: string | null,
  seq: number,
  audience: string | null,
  revenue: number | null,
  currency: string | null,
];

const COLUMNS =
  'e.event_id, e.type, e.paywall_id, e.ts, e.client_ts, e.sent_at, e.received_at, e.user_id, e.variant_id, e.product_id, e.properties, e.seq, e.audience, e.revenue, e.currency';

function text(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** One NDJSON line (ExportedEventSchema); properties are stored as JSON text and copied, never parsed. */
function line(row: Row): string {
  return (
    `{"id":${text(row[0])},"type":${JSON.stringify(row[1])},"paywall_id":${JSON.stringify(row[2])},"ts":${row[3]},` +
    `"client_ts":${row[4]},"sent_at":${row[5] ?? 'null'},"received_at":${row[6]},"user_id":${text(row[7])},` +
    `"variant_id":${text(row[8])},"product_id":${text(row[9])},"audience":${text(row[12])},"revenue":${row[13] ?? 'null'},` +
    `"currency":${text(row[14])},"properties":${row[10] ?? 'null'}}\n`
  );
}

/** The same columns read from the time index where it has them, so that SQLite walks the index in order instead of sorting. */
const INDEXED_COLUMNS = COLUMNS.replace('e.ts,', 'i.ts,').replace('e.seq,', 'i.seq,');

/**
 * The project's events in the range, oldest first, as NDJSON chunks. The
 * events a checkpoint covers are read in order through event_time_index; the
 * ones after it (not yet indexed: seconds' worth, or up to a checkpoint's
 * worth after a burst) are read by seq. One compound statement orders both
 * by (ts, seq): SQLite merges the index walk with a sort of the tail, and its
 * sorter spills to temporary files rather than holding a large tail in
 * memory, so the export's memory stays flat whatever the checkpoint lags.
 * The export reads through a connection of its own: a statement being
 * iterated keeps its connection busy, and the read transaction gives the
 * whole export one consistent snapshot (the checkpoint and the events agree)
 * while writers go on. The connection is opened on the first chunk and
 * closed when the stream ends or is abandoned (the client went away).
 */
export function* exportEvents(dbPath: string, range: ExportRange): Generator<string> {
  const db = openDatabase(dbPath, { mustExist: true });
  try {
    db.pragma('query_only = ON');
    db.exec('BEGIN');
    const byPaywall = range.paywallId === undefined ? '' : 'AND e.paywall_id = ?';
    const params = [range.projectId, range.from, range.to, ...(range.paywallId === undefined ? [] : [range.paywallId])];
    const checkpointed = (db.prepare('SELECT seq FROM event_checkpoint WHERE id = 1').pluck().get() as number | undefined) ?? 0;
    const rows = db
      .prepare(
        `SELECT ${INDEXED_COLUMNS} FROM event_time_index i JOIN events e ON e.seq = i.seq
         WHERE i.project_no = (SELECT project_no FROM event_projects WHERE project_id = ?) AND i.ts BETWEEN ? AND ? ${byPaywall}
         UNION ALL
         SELECT ${COLUMNS} FROM events e WHERE e.seq > ? AND e.project_id = ? AND e.ts BETWEEN ? AND ? ${byPaywall}
         ORDER BY 4, 12`,
      )
      .raw();
    let chunk = '';
    for (const row of rows.iterate(...params, checkpointed, ...params) as IterableIterator<Row>) {
      chunk += line(row);
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
  } finally {
    db.close();
  }
}
