/**
 * `paywalld migrate-to`: a SQLite database copied into an empty PostgreSQL
 * one in a single transaction (docs/operations/scale-out.md, "Moving a SQLite database
 * to PostgreSQL"). What is copied is the data; what the SQLite event writer
 * derives from it is rebuilt on the other side.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DERIVED_TABLES } from '../analytics/checkpoint.ts';
import type { Database } from '../db/database.ts';
import type { Sql } from '../db/postgres/connection.ts';

/** The tables copied, parents before the tables whose foreign keys name them. */
export const COPIED_TABLES = [
  'projects',
  'api_keys',
  'products',
  'paywalls',
  'paywall_revisions',
  'paywall_phases',
  'placements',
  'placement_revisions',
  'events',
  'purchases',
  'user_links',
  'user_tokens',
  'integrations',
  'integration_customers',
  'api_key_usage',
  'users',
  'memberships',
  'sessions',
  'invitations',
  'sign_in_failures',
  'audit_log',
  'webhooks',
  'webhook_deliveries',
  'experiment_decisions',
  'event_public_names',
] as const;

/**
 * Tables of the SQLite schema not copied, and why: the versions and the
 * generation counter belong to the target, as does SQLite's own counter of
 * AUTOINCREMENT keys (audit_log's: the identity continues past the copied
 * rows); the rest is the SQLite event writer's derived state (checkpoint,
 * indexes, the user dictionary and user_token_progress, a position in it),
 * rebuilt from the events.
 */
export const SQLITE_TABLES_LEFT = ['schema_migrations', 'config_generation', 'sqlite_sequence', 'user_token_progress', ...DERIVED_TABLES];

/**
 * Tables of the PostgreSQL schema not filled from SQLite: its own versions
 * and counter, the token progress, which starts over, the checkpoints of
 * the derived state, which the first instance builds from the events, and
 * the seq of the newest event commit with a new name (event_names_changed), set
 * past the copied events.
 */
export const POSTGRES_TABLES_LEFT = ['schema_migrations', 'config_generation', 'user_token_progress', 'event_checkpoints', 'event_names_changed'] as const;

/** Tables with an identity column, whose sequence must continue past the copied values. */
const IDENTITY_COLUMNS: Partial<Record<(typeof COPIED_TABLES)[number], string>> = {
  projects: 'seq',
  api_keys: 'seq',
  events: 'seq',
  purchases: 'seq',
  audit_log: 'seq',
  webhook_deliveries: 'seq',
};

/** What COPY is sent in: big enough that a chunk costs little, small enough to keep memory flat. */
const CHUNK_CHARACTERS = 256 * 1024;

/** A value in COPY's text format: \N for NULL, text with its backslashes, tabs and line ends escaped. */
function copyText(value: unknown): string {
  if (value === null) return '\\N';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
  throw new Error(`a ${typeof value} cannot be copied: the copied tables hold numbers and text only`);
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export class TargetNotEmptyError extends Error {
  constructor(readonly tables: string[]) {
    super(`the PostgreSQL database already holds data (in ${tables.join(', ')}); migrate-to copies only into an empty database, and wrote nothing`);
    this.name = 'TargetNotEmptyError';
  }
}

type Queryable = Pick<Sql, 'unsafe'>;

/** The copied tables that hold at least one row in the target (of those it has: an older schema lacks some). */
export async function tablesWithRows(sql: Queryable): Promise<string[]> {
  const found: string[] = [];
  for (const table of COPIED_TABLES) {
    const [exists] = await sql.unsafe<{ present: boolean }[]>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
    if (!exists?.present) continue;
    const [row] = await sql.unsafe<{ present: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM ${table}) AS present`);
    if (row?.present) found.push(table);
  }
  return found;
}

async function postgresColumns(sql: Queryable, table: string): Promise<string[]> {
  const rows = await sql.unsafe<{ column_name: string }[]>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
    [table],
  );
  return rows.map((row) => row.column_name);
}

function sqliteColumns(db: Database, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((row) => row.name);
}

type CopyCounts = [table: string, rows: number][];

/**
 * Copies every table of COPIED_TABLES from `db` into `sql`'s database, in
 * one transaction: first every copied table is locked (no instance writes
 * meanwhile) and found empty, else TargetNotEmptyError and nothing written;
 * then each table with COPY, the identity sequences set past the
 * copied values, and each table's count checked against the source's.
 * The source is read in one read transaction: a consistent snapshot.
 */
export async function copySqliteToPostgres(db: Database, sql: Sql): Promise<CopyCounts> {
  db.exec('BEGIN');
  try {
    return await sql.begin(async (tx) => {
      // A large events table takes longer than a request's statement timeout.
      await tx.unsafe('SET LOCAL statement_timeout = 0');
      await tx.unsafe(`LOCK TABLE ${COPIED_TABLES.join(', ')} IN EXCLUSIVE MODE`);
      const occupied = await tablesWithRows(tx);
      if (occupied.length > 0) throw new TargetNotEmptyError(occupied);
      const counts: CopyCounts = [];
      for (const table of COPIED_TABLES) counts.push([table, await copyTable(db, tx, table)]);
      // An instance already on this database reads the copied events under the events lock before it admits any more.
      await tx.unsafe('UPDATE event_names_changed SET seq = (SELECT coalesce(max(seq), 0) FROM events)');
      return counts;
    });
  } finally {
    db.exec('COMMIT');
  }
}

async function copyTable(db: Database, tx: Queryable, table: (typeof COPIED_TABLES)[number]): Promise<number> {
  const columns = await postgresColumns(tx, table);
  const present = new Set(sqliteColumns(db, table));
  const missing = columns.filter((column) => !present.has(column));
  if (missing.length > 0) throw new Error(`the SQLite table ${table} lacks the column(s) ${missing.join(', ')} PostgreSQL has: the two schemas differ`);
  const names = columns.map((column) => `"${column}"`).join(', ');
  let copied = 0;
  const rows = db.prepare(`SELECT ${names} FROM ${table}`).raw();
  // COPY's text format, a chunk of rows at a time: one round trip for the table, and no parameter limit.
  async function* lines(): AsyncGenerator<string> {
    let chunk = '';
    for (const row of rows.iterate() as Iterable<unknown[]>) {
      chunk += `${row.map(copyText).join('\t')}\n`;
      copied++;
      if (chunk.length >= CHUNK_CHARACTERS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
  }
  await pipeline(Readable.from(lines()), await tx.unsafe(`COPY ${table} (${names}) FROM STDIN`).writable());
  const identity = IDENTITY_COLUMNS[table];
  if (identity !== undefined) {
    await tx.unsafe(`SELECT setval(pg_get_serial_sequence('${table}', '${identity}'), (SELECT coalesce(max(${identity}), 0) + 1 FROM ${table}), false)`);
  }
  const [source] = db.prepare(`SELECT count(*) FROM ${table}`).raw().all() as [number][];
  const [target] = await tx.unsafe<{ count: number }[]>(`SELECT count(*)::bigint AS count FROM ${table}`);
  if (source?.[0] !== copied || target?.count !== copied) {
    throw new Error(`copying ${table}: ${source?.[0]} rows in SQLite, ${copied} sent, ${target?.count} in PostgreSQL`);
  }
  return copied;
}
