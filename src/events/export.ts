import { openDatabase } from '../db/database.ts';

/** Lines are sent in chunks of about this many characters: one socket write each, never the whole result. */
const CHUNK_CHARS = 64 * 1024;

export interface ExportRange {
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
];

const COLUMNS = 'event_id, type, paywall_id, ts, client_ts, sent_at, received_at, user_id, variant_id, product_id, properties';

function text(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** One NDJSON line (ExportedEventSchema); properties are stored as JSON text and copied, never parsed. */
function line(row: Row): string {
  return (
    `{"id":${text(row[0])},"type":${JSON.stringify(row[1])},"paywall_id":${JSON.stringify(row[2])},"ts":${row[3]},` +
    `"client_ts":${row[4]},"sent_at":${row[5] ?? 'null'},"received_at":${row[6]},"user_id":${text(row[7])},` +
    `"variant_id":${text(row[8])},"product_id":${text(row[9])},"properties":${row[10] ?? 'null'}}\n`
  );
}

/**
 * The project's events in the range, oldest first, as NDJSON chunks. The
 * export reads through a connection of its own: a statement being iterated
 * keeps its connection busy, and the read transaction gives the whole export
 * one consistent snapshot while writers go on. The connection is opened on
 * the first chunk and closed when the stream ends or is abandoned (the
 * client went away).
 */
export function* exportEvents(dbPath: string, range: ExportRange): Generator<string> {
  const db = openDatabase(dbPath, { mustExist: true });
  try {
    db.pragma('query_only = ON');
    const byPaywall = range.paywallId === undefined ? '' : 'AND paywall_id = ?';
    const select = db
      .prepare(`SELECT ${COLUMNS} FROM events WHERE project_id = ? AND ts BETWEEN ? AND ? ${byPaywall} ORDER BY ts, seq`)
      .raw();
    const params = [range.projectId, range.from, range.to, ...(range.paywallId === undefined ? [] : [range.paywallId])];
    let chunk = '';
    for (const row of select.iterate(...params) as IterableIterator<Row>) {
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
