import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';
import { STALE, type Stale } from '../shared/stale.ts';
import { memberChanged, memberInvited, memberJoined, memberRemoved, passwordChanged, passwordReset, userRemoved } from './account-entries.ts';
import { alreadyMember, lastOwner, memberNotFound } from './refusals.ts';
import {
  type AccountStore,
  emailKey,
  type InvitationRow,
  type MemberRow,
  type Membership,
  type NewInvitation,
  type Redemption,
  type UserRow,
} from './store.ts';

async function userById(tx: Transaction | Sql, id: string): Promise<UserRow | undefined> {
  const [row] = await tx<UserRow[]>`SELECT id, email, name, password_hash, created_at FROM users WHERE id = ${id}`;
  return row;
}

/**
 * The member, its project's memberships locked: two owners demoting each
 * other at once must not both succeed, so the owner count stays true until
 * the change commits.
 */
async function lockedMember(tx: Transaction, projectId: string, userId: string): Promise<{ current: MemberRow; owners: number }> {
  const rows = await tx<{ user_id: string; role: Role }[]>`SELECT user_id, role FROM memberships WHERE project_id = ${projectId} FOR UPDATE`;
  const [current] = await tx<MemberRow[]>`
    SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.project_id = ${projectId} AND m.user_id = ${userId}`;
  if (!current) throw memberNotFound();
  return { current, owners: rows.filter((row) => row.role === 'owner').length };
}

/** People, roles, invitations and resets in PostgreSQL (store.ts says what each method does). */
export class PostgresAccountStore implements AccountStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  userByEmail(email: string): Promise<UserRow | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<UserRow[]>`SELECT id, email, name, password_hash, created_at FROM users WHERE email_key = ${emailKey(email)}`;
      return row;
    });
  }

  user(id: string): Promise<UserRow | undefined> {
    return storeCall(() => userById(this.sql, id));
  }

  users(): Promise<UserRow[]> {
    return storeCall(async () => [...(await this.sql<UserRow[]>`SELECT id, email, name, password_hash, created_at FROM users ORDER BY created_at, id`)]);
  }

  memberships(userId: string): Promise<Membership[]> {
    return storeCall(async () => [
      ...(await this.sql<Membership[]>`
        SELECT m.project_id, p.name AS project_name, m.role FROM memberships m JOIN projects p ON p.id = m.project_id
        WHERE m.user_id = ${userId} ORDER BY p.seq`),
    ]);
  }

  members(projectId: string): Promise<MemberRow[]> {
    return storeCall(async () => [
      ...(await this.sql<MemberRow[]>`
        SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.project_id = ${projectId} ORDER BY m.created_at, u.id`),
    ]);
  }

  invitation(tokenHash: string, now: number): Promise<InvitationRow | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<InvitationRow[]>`
        SELECT kind, project_id, email, role, expires_at, used_at FROM invitations
        WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}`;
      return row;
    });
  }

  invite(invitation: NewInvitation, change: Change): Promise<void> {
    const { tokenHash, projectId, email, role, now, expiresAt } = invitation;
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        if (email !== null) {
          const [member] = await tx`
            SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.project_id = ${projectId} AND u.email_key = ${emailKey(email)}`;
          if (member) throw alreadyMember();
        }
        await tx`INSERT INTO invitations (token_hash, kind, project_id, email, role, created_at, expires_at)
                 VALUES (${tokenHash}, 'invite', ${projectId}, ${email}, ${role}, ${now}, ${expiresAt})`;
        await this.changes.record(tx, change, memberInvited(projectId, email, role));
      }),
    );
  }

  issueReset(userId: string, tokenHash: string, now: number, expiresAt: number, change: Change): Promise<void> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const user = await userById(tx, userId);
        if (!user) return;
        await tx`INSERT INTO invitations (token_hash, kind, project_id, email, role, created_at, expires_at)
                 VALUES (${tokenHash}, 'reset', NULL, ${user.email}, NULL, ${now}, ${expiresAt})`;
        await tx`DELETE FROM sessions WHERE user_id = ${userId}`;
        await this.changes.record(tx, change, passwordReset(userId, user.email));
      }),
    );
  }

  redeem(redemption: Redemption, change: Change): Promise<UserRow | Stale> {
    const { tokenHash, now, session } = redemption;
    const created = 'passwordHash' in redemption.user ? redemption.user : undefined;
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // The token's row lock makes a second redemption wait, then find it used.
        const [token] = await tx<InvitationRow[]>`
          UPDATE invitations SET used_at = ${now} WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}
          RETURNING kind, project_id, email, role, expires_at, used_at`;
        if (!token) return STALE;
        if (created) {
          await tx`INSERT INTO users (id, email, email_key, name, password_hash, created_at)
                   VALUES (${created.id}, ${created.email}, ${emailKey(created.email)}, ${created.name}, ${created.passwordHash}, ${now})`;
        }
        const user = await userById(tx, redemption.user.id);
        // Gone meanwhile (removed): the transaction rolls back, the token stays unused.
        if (!user) throw STALE;
        if (token.kind === 'invite') {
          const joined = await tx`INSERT INTO memberships (project_id, user_id, role, created_at)
                                  VALUES (${token.project_id}, ${user.id}, ${token.role}, ${now}) ON CONFLICT DO NOTHING RETURNING 1`;
          if (joined.length === 1) await this.changes.record(tx, change, memberJoined(token.project_id!, user.id, user.email, token.role!));
        }
        if (token.kind === 'reset' && redemption.passwordHash !== undefined) {
          await tx`UPDATE users SET password_hash = ${redemption.passwordHash} WHERE id = ${user.id}`;
          await tx`DELETE FROM sessions WHERE user_id = ${user.id}`;
          await this.changes.record(tx, change, passwordChanged(user.id, user.email));
        }
        await tx`INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
                 VALUES (${session.tokenHash}, ${user.id}, ${now}, ${now}, ${session.expiresAt})`;
        return (await userById(tx, user.id))!;
      }),
    ).catch((error: unknown) => {
      if (error === STALE) return STALE;
      throw error;
    });
  }

  setRole(projectId: string, userId: string, role: Role, change: Change): Promise<MemberRow> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const { current, owners } = await lockedMember(tx, projectId, userId);
        if (current.role === role) return current;
        if (current.role === 'owner' && owners <= 1) throw lastOwner();
        await tx`UPDATE memberships SET role = ${role} WHERE project_id = ${projectId} AND user_id = ${userId}`;
        await this.changes.record(tx, change, memberChanged(projectId, userId, current.email, current.role, role));
        return { ...current, role };
      }),
    );
  }

  removeMember(projectId: string, userId: string, change: Change): Promise<void> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const { current, owners } = await lockedMember(tx, projectId, userId);
        if (current.role === 'owner' && owners <= 1) throw lastOwner();
        await tx`DELETE FROM memberships WHERE project_id = ${projectId} AND user_id = ${userId}`;
        await this.changes.record(tx, change, memberRemoved(projectId, userId, current.email, current.role));
      }),
    );
  }

  changePassword(userId: string, passwordHash: string, keep: string, change: Change): Promise<void> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const user = await userById(tx, userId);
        if (!user) return;
        await tx`UPDATE users SET password_hash = ${passwordHash} WHERE id = ${userId}`;
        await tx`DELETE FROM sessions WHERE user_id = ${userId} AND token_hash <> ${keep}`;
        await this.changes.record(tx, change, passwordChanged(userId, user.email));
      }),
    );
  }

  removeUser(userId: string, change: Change): Promise<void> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const user = await userById(tx, userId);
        if (!user) return;
        const owned = await tx<{ project_id: string }[]>`SELECT project_id FROM memberships WHERE user_id = ${userId} AND role = 'owner'`;
        for (const { project_id } of owned) {
          const owners = await tx`SELECT user_id FROM memberships WHERE project_id = ${project_id} AND role = 'owner' FOR UPDATE`;
          if (owners.length <= 1) throw lastOwner();
        }
        // Memberships and sessions go with the row (ON DELETE CASCADE).
        await tx`DELETE FROM users WHERE id = ${userId}`;
        await this.changes.record(tx, change, userRemoved(userId, user.email));
      }),
    );
  }
}
