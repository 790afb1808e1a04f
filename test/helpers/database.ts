/**
 * A connection of the test's own to a test server's database, whichever the
 * backend (helpers/backend.ts): for a test that changes what is stored in a
 * way no client can (receipt times moved back) or counts rows no answer
 * shows. The statements are the SQL both databases take alike, with `?` for
 * each parameter; a test about one backend's own tables says so (`backend`).
 */
import type { TestContext } from 'node:test';
import { ADVISORY_LOCKS } from '../../src/db/postgres/advisory-locks.ts';
import { closePool, openPool } from '../../src/db/postgres/connection.ts';
import { isPostgresUrl } from '../../src/db/target.ts';
import type { TestBackend } from './backend.ts';
import { openTestDb } from './events.ts';

type Parameter = string | number | null;

export interface TestSql {
  backend: TestBackend;
  /** Runs a statement; resolves once it is committed. */
  run(statement: string, ...parameters: Parameter[]): Promise<void>;
  /** The first column of the first row of a query. */
  value(query: string, ...parameters: Parameter[]): Promise<unknown>;
  /**
   * Holds what every event transaction waits for, as another process could,
   * until the function it resolves with is called: SQLite's write lock
   * (BEGIN IMMEDIATE), PostgreSQL's events lock (ADVISORY_LOCKS.events, for
   * this session). Events sent meanwhile stay queued.
   */
  holdEventWrites(): Promise<() => Promise<void>>;
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`… (no statement here holds a `?` in a literal). */
function numbered(statement: string): string {
  let n = 0;
  return statement.replace(/\?/g, () => `$${++n}`);
}

/** A connection to `db` (a file or a postgres:// URL, as TestServer.dbPath holds it), closed when the test ends. */
export function openTestSql(t: Pick<TestContext, 'after'>, db: string): TestSql {
  if (isPostgresUrl(db)) {
    // One connection: a session lock is that connection's.
    const sql = openPool(db, { size: 1 });
    t.after(() => closePool(sql));
    return {
      backend: 'postgres',
      run: async (statement, ...parameters) => void (await sql.unsafe(numbered(statement), parameters)),
      value: async (query, ...parameters) => {
        const [row] = await sql.unsafe(numbered(query), parameters);
        return row === undefined ? undefined : Object.values(row)[0];
      },
      holdEventWrites: async () => {
        await sql`SELECT pg_advisory_lock(${ADVISORY_LOCKS.events.toString()}::bigint)`;
        return async () => void (await sql`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.events.toString()}::bigint)`);
      },
    };
  }
  const sqlite = openTestDb(t, db);
  return {
    backend: 'sqlite',
    run: async (statement, ...parameters) => void sqlite.prepare(statement).run(...parameters),
    value: async (query, ...parameters) =>
      sqlite
        .prepare(query)
        .pluck()
        .get(...parameters),
    holdEventWrites: async () => {
      sqlite.exec('BEGIN IMMEDIATE');
      return async () => void sqlite.exec('COMMIT');
    },
  };
}
