/**
 * An exported event as one NDJSON line (ExportedEventSchema), from the
 * columns both backends' exports read: SQLite's (export.ts) and
 * PostgreSQL's (postgres-export.ts) answer byte for byte alike.
 */

/** Lines are sent in chunks of about this many characters: one socket write each, never the whole result. */
export const CHUNK_CHARS = 64 * 1024;

export interface ExportRange {
  projectId: string;
  paywallId: string | undefined;
  from: number;
  to: number;
}

/** Reads a range's events as NDJSON chunks: export.ts on a SQLite file, postgres-export.ts on a pool; the server's database hands over its own. */
export type EventExport = (range: ExportRange) => Iterable<string> | AsyncIterable<string>;

export type ExportRow = [
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
  placement: string | null,
];

export const COLUMNS =
  'e.event_id, e.type, e.paywall_id, e.ts, e.client_ts, e.sent_at, e.received_at, e.user_id, e.variant_id, e.product_id, e.properties, e.seq, e.audience, e.revenue, e.currency, e.placement';

function text(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** One NDJSON line (ExportedEventSchema); properties are stored as JSON text and copied, never parsed. */
export function line(row: ExportRow): string {
  return (
    `{"id":${text(row[0])},"type":${JSON.stringify(row[1])},"paywall_id":${JSON.stringify(row[2])},"ts":${row[3]},` +
    `"client_ts":${row[4]},"sent_at":${row[5] ?? 'null'},"received_at":${row[6]},"user_id":${text(row[7])},` +
    `"variant_id":${text(row[8])},"product_id":${text(row[9])},"audience":${text(row[12])},"revenue":${row[13] ?? 'null'},` +
    `"currency":${text(row[14])},"properties":${row[10] ?? 'null'},"placement":${text(row[15])}}\n`
  );
}
