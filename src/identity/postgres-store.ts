import { ADVISORY_LOCKS } from '../db/postgres/advisory-locks.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { appAccountToken } from './app-account-token.ts';
import { linkBatch } from './postgres-link-batch.ts';
import { type IdentityStore, type LinkOutcome, type LinkRequest, MAX_LINKS_PER_PROJECT, MAX_LINKS_PER_USER, type StoredLink } from './store.ts';

/** Event users hashed per call while catching up: bounds one call's work. */
const CATCH_UP_PAGE = 5000;
/** The writes of links and tokens, which PostgresPurchaseStore.insert runs in its own transaction as well. */
export class PostgresIdentityWrites {
  /** Whether a new link to the user would pass a limit: MAX_LINKS_PER_USER, or MAX_LINKS_PER_PROJECT. */
  async full(tx: Transaction, projectId: string, userId: string): Promise<boolean> {
    // A project's seqs are 1, 2, 3…: links are never deleted, so the newest is the count.
    const [counts] = await tx<{ user: number; project: number }[]>`
      SELECT (SELECT count(*)::int FROM user_links WHERE project_id = ${projectId} AND user_id = ${userId}) AS user,
             (SELECT coalesce(max(seq), 0) FROM user_links WHERE project_id = ${projectId}) AS project`;
    return counts!.user >= MAX_LINKS_PER_USER || counts!.project >= MAX_LINKS_PER_PROJECT;
  }

  /**
   * Links the id to the user unless it is linked already or a limit is
   * reached (a store's aliases past it are not linked); true when this call
   * linked it. The caller holds the purchases' advisory lock: the project's
   * next seq is max(seq) + 1, which no other transaction takes meanwhile.
   */
  async link(tx: Transaction, projectId: string, id: string, userId: string, now: number): Promise<boolean> {
    if (await this.full(tx, projectId, userId)) return false;
    const rows = await tx`INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq)
                          VALUES (${projectId}, ${id}, ${userId}, ${now}, (SELECT coalesce(max(seq), 0) + 1 FROM user_links WHERE project_id = ${projectId}))
                          ON CONFLICT DO NOTHING RETURNING 1`;
    return rows.length === 1;
  }

  /** Records the appAccountToken of each user. */
  async remember(tx: Transaction, projectId: string, userIds: Iterable<string>): Promise<void> {
    const rows = [...new Set(userIds)].map((userId) => ({ project_id: projectId, token: appAccountToken(userId), user_id: userId }));
    if (rows.length === 0) return;
    await tx`INSERT INTO user_tokens ${tx(rows, 'project_id', 'token', 'user_id')} ON CONFLICT DO NOTHING`;
  }
}

/** One user across ids in PostgreSQL (store.ts says what each method does). */
export class PostgresIdentityStore implements IdentityStore {
  private readonly writes = new PostgresIdentityWrites();

  constructor(private readonly sql: Sql) {}

  /**
   * Under the purchases' advisory lock, which every transaction that inserts
   * purchase records or links holds: what the sdk key's rule reads (records,
   * links) cannot change before this commits, on any instance.
   */
  link(requests: readonly LinkRequest[], now: number): Promise<LinkOutcome[]> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.purchases.toString()})`;
        return linkBatch(tx, requests, now);
      }),
    );
  }

  links(projectId: string): Promise<Map<string, string>> {
    return storeCall(async () => {
      const rows = await this.sql<{ anonymous_id: string; user_id: string }[]>`SELECT anonymous_id, user_id FROM user_links WHERE project_id = ${projectId}`;
      return new Map(rows.map((row) => [row.anonymous_id, row.user_id]));
    });
  }

  linksAfter(projectId: string, seq: number, limit: number): Promise<StoredLink[]> {
    return storeCall(async () => [
      ...(await this.sql<StoredLink[]>`
        SELECT seq, anonymous_id AS "anonymousId", user_id AS "userId" FROM user_links
        WHERE project_id = ${projectId} AND seq > ${seq} ORDER BY seq LIMIT ${limit}`),
    ]);
  }

  userOfAppAccountToken(projectId: string, token: string): Promise<string | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<{ user_id: string }[]>`SELECT user_id FROM user_tokens WHERE project_id = ${projectId} AND token = ${token.toLowerCase()}`;
      return row?.user_id;
    });
  }

  /**
   * PostgreSQL has no event users dictionary: the events themselves are read
   * in seq order, and user_token_progress.ordinal holds the next seq to read.
   * Every event insert holds the events advisory lock until it commits
   * (docs/operations/scale-out.md, "Commit order is read order"), so the events a
   * transaction sees are every event up to some seq: reading on from the
   * last one seen skips none, however recent.
   */
  catchUpWithEventUsers(projectId: string): Promise<boolean> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const [progress] = await tx<{ ordinal: number }[]>`SELECT ordinal FROM user_token_progress WHERE project_id = ${projectId} FOR UPDATE`;
        const from = progress?.ordinal ?? 0;
        const events = await tx<{ seq: number; user_id: string }[]>`
          SELECT seq, user_id FROM events
          WHERE project_id = ${projectId} AND seq >= ${from} AND user_id IS NOT NULL
          ORDER BY seq LIMIT ${CATCH_UP_PAGE}`;
        if (events.length === 0) return false;
        await this.writes.remember(
          tx,
          projectId,
          events.map((event) => event.user_id),
        );
        await tx`INSERT INTO user_token_progress (project_id, ordinal) VALUES (${projectId}, ${events.at(-1)!.seq + 1})
                 ON CONFLICT (project_id) DO UPDATE SET ordinal = excluded.ordinal`;
        return events.length === CATCH_UP_PAGE;
      }),
    );
  }
}
