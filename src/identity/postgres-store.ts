import { ADVISORY_LOCKS } from '../db/postgres/advisory-locks.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { appAccountToken } from './app-account-token.ts';
import type { IdentityStore, LinkOutcome, LinkRequest, StoredLink } from './store.ts';

/** Event users hashed per call while catching up: bounds one call's work. */
const CATCH_UP_PAGE = 5000;
/** The writes of links and tokens, which PostgresPurchaseStore.insert runs in its own transaction as well. */
export class PostgresIdentityWrites {
  /** Links the id to the user unless it is linked already; true when this call linked it. */
  async link(tx: Transaction, projectId: string, id: string, userId: string, now: number): Promise<boolean> {
    const rows = await tx`INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at) VALUES (${projectId}, ${id}, ${userId}, ${now})
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

/** Whether only a secret key may link this anonymous id: it has purchase records, or other ids are linked to it (docs/revenue.md, "Who can link"). */
async function protectedId(tx: Transaction, projectId: string, anonymousId: string): Promise<boolean> {
  const rows = await tx`SELECT 1 FROM purchases WHERE project_id = ${projectId} AND user_id = ${anonymousId}
                        UNION ALL SELECT 1 FROM user_links WHERE project_id = ${projectId} AND user_id = ${anonymousId} LIMIT 1`;
  return rows.length > 0;
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
        const outcomes: LinkOutcome[] = [];
        for (const { projectId, anonymousId, userId, secret } of requests) {
          const [linked] = await tx<{ user_id: string }[]>`SELECT user_id FROM user_links WHERE project_id = ${projectId} AND anonymous_id = ${anonymousId}`;
          if (linked) outcomes.push({ userId: linked.user_id, created: false });
          else if (!secret && (await protectedId(tx, projectId, anonymousId))) outcomes.push({ refused: 'link_needs_secret_key' });
          else {
            await this.writes.link(tx, projectId, anonymousId, userId, now);
            await this.writes.remember(tx, projectId, [anonymousId, userId]);
            outcomes.push({ userId, created: true });
          }
        }
        return outcomes;
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
   * (docs/scale-out.md, "Commit order is read order"), so the events a
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
