import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';
import { signInThrottled } from './account-entries.ts';
import type { Failure, SessionRow, SessionStore } from './session-store.ts';
import { throttledWhat } from './throttle.ts';

async function times(tx: Transaction | Sql, subject: string, since: number): Promise<number[]> {
  return (await tx<{ at: number }[]>`SELECT at FROM sign_in_failures WHERE subject = ${subject} AND at >= ${since} ORDER BY at`).map((row) => row.at);
}

/** Sessions and failed sign-ins in PostgreSQL (session-store.ts says what each method does). */
export class PostgresSessionStore implements SessionStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  find(tokenHash: string): Promise<{ session: SessionRow; roles: [string, Role][] } | undefined> {
    return storeCall(() =>
      // One snapshot for the session and its roles.
      this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
        const [session] = await tx<SessionRow[]>`
          SELECT s.user_id, u.email, u.name, s.created_at, s.last_seen_at, s.expires_at FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE s.token_hash = ${tokenHash}`;
        if (!session) return undefined;
        const roles = await tx<{ project_id: string; role: Role }[]>`SELECT project_id, role FROM memberships WHERE user_id = ${session.user_id}`;
        return { session, roles: roles.map((r): [string, Role] => [r.project_id, r.role]) };
      }),
    );
  }

  create(tokenHash: string, userId: string, now: number, expiresAt: number): Promise<void> {
    return storeCall(async () => {
      await this
        .sql`INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES (${tokenHash}, ${userId}, ${now}, ${now}, ${expiresAt})`;
    });
  }

  touch(tokenHash: string, now: number): Promise<void> {
    return storeCall(async () => {
      await this.sql`UPDATE sessions SET last_seen_at = ${now} WHERE token_hash = ${tokenHash} AND last_seen_at < ${now}`;
    });
  }

  end(tokenHash: string): Promise<void> {
    return storeCall(async () => {
      await this.sql`DELETE FROM sessions WHERE token_hash = ${tokenHash}`;
    });
  }

  failures(subjects: string[], since: number): Promise<number[][]> {
    return storeCall(() => Promise.all(subjects.map((subject) => times(this.sql, subject, since))));
  }

  recordFailure(failure: Failure, since: number, limit: number, change: Change): Promise<void> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // Two instances failing at once may both count the limit and both write the entry: harmless, and no lock to wait for.
        const counts: number[] = [];
        for (const subject of [`account:${failure.account}`, `ip:${failure.ip}`]) {
          await tx`DELETE FROM sign_in_failures WHERE subject = ${subject} AND at < ${since}`;
          await tx`INSERT INTO sign_in_failures (subject, at) VALUES (${subject}, ${failure.now})`;
          counts.push((await times(tx, subject, since)).length);
        }
        const what = throttledWhat(failure, counts, limit);
        if (what) await this.changes.record(tx, change, signInThrottled(what));
      }),
    );
  }

  prune(now: number, idleMs: number, since: number): Promise<void> {
    return storeCall(async () => {
      await this.sql`DELETE FROM sessions WHERE expires_at <= ${now} OR last_seen_at <= ${now - idleMs}`;
      await this.sql`DELETE FROM sign_in_failures WHERE at < ${since}`;
    });
  }
}
