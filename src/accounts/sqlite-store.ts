import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';
import { STALE } from '../shared/stale.ts';
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

const USER_COLUMNS = 'id, email, name, password_hash, created_at';

export class SqliteAccountStore implements AccountStore {
  readonly userByEmail;
  readonly user;
  readonly users;
  readonly memberships;
  readonly members;
  readonly invitation;
  readonly invite;
  readonly issueReset;
  readonly redeem;
  readonly setRole;
  readonly removeMember;
  readonly changePassword;
  readonly removeUser;

  constructor(db: Database, changes: SqliteChangeLog) {
    const byEmail = db.prepare<[string], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE email_key = ?`);
    const byId = db.prepare<[string], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`);
    const all = db.prepare<[], UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`);
    const rolesOf = db.prepare<[string], Membership>(
      `SELECT m.project_id, p.name AS project_name, m.role FROM memberships m JOIN projects p ON p.id = m.project_id
       WHERE m.user_id = ? ORDER BY p.seq`,
    );
    const membersOf = db.prepare<[string], MemberRow>(
      `SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.project_id = ? ORDER BY m.created_at, u.id`,
    );
    const member = db.prepare<[string, string], MemberRow>(
      `SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.project_id = ? AND m.user_id = ?`,
    );
    const owners = db.prepare<[string], number>("SELECT count(*) FROM memberships WHERE project_id = ? AND role = 'owner'").pluck();
    const ownedAlone = db
      .prepare<[string], string>(
        `SELECT m.project_id FROM memberships m WHERE m.user_id = ? AND m.role = 'owner'
         AND (SELECT count(*) FROM memberships o WHERE o.project_id = m.project_id AND o.role = 'owner') = 1`,
      )
      .pluck();
    const tokenRow = db.prepare<[string, number], InvitationRow>(
      'SELECT kind, project_id, email, role, expires_at, used_at FROM invitations WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?',
    );
    const insertInvitation = db.prepare(
      'INSERT INTO invitations (token_hash, kind, project_id, email, role, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const useToken = db.prepare('UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?');
    const insertUser = db.prepare('INSERT INTO users (id, email, email_key, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    const insertMember = db.prepare('INSERT INTO memberships (project_id, user_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    const updateRole = db.prepare('UPDATE memberships SET role = ? WHERE project_id = ? AND user_id = ?');
    const deleteMember = db.prepare('DELETE FROM memberships WHERE project_id = ? AND user_id = ?');
    const setPassword = db.prepare('UPDATE users SET password_hash = ? WHERE id = ?');
    const endSessions = db.prepare('DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?');
    const insertSession = db.prepare('INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)');
    const deleteUser = db.prepare('DELETE FROM users WHERE id = ?');

    /** The owners left if this member stopped being one: none is refused. */
    const keepsAnOwner = (projectId: string, current: MemberRow) => {
      if (current.role === 'owner' && owners.get(projectId)! <= 1) throw lastOwner();
    };
    const existing = (projectId: string, userId: string) => {
      const row = member.get(projectId, userId);
      if (!row) throw memberNotFound();
      return row;
    };

    this.userByEmail = sqliteRead(db, (email: string) => byEmail.get(emailKey(email)));
    this.user = sqliteRead(db, (id: string) => byId.get(id));
    this.users = sqliteRead(db, () => all.all());
    this.memberships = sqliteRead(db, (userId: string) => rolesOf.all(userId));
    this.members = sqliteRead(db, (projectId: string) => membersOf.all(projectId));
    this.invitation = sqliteRead(db, (tokenHash: string, now: number) => tokenRow.get(tokenHash, now));
    this.invite = sqliteWrite(db, (invitation: NewInvitation, change: Change) => {
      const { tokenHash, projectId, email, role, now, expiresAt } = invitation;
      const user = email === null ? undefined : byEmail.get(emailKey(email));
      if (user && member.get(projectId, user.id)) throw alreadyMember();
      insertInvitation.run(tokenHash, 'invite', projectId, email, role, now, expiresAt);
      changes.record(change, memberInvited(projectId, email, role));
    });
    this.issueReset = sqliteWrite(db, (userId: string, tokenHash: string, now: number, expiresAt: number, change: Change) => {
      const user = byId.get(userId);
      if (!user) return;
      insertInvitation.run(tokenHash, 'reset', null, user.email, null, now, expiresAt);
      endSessions.run(userId, '');
      changes.record(change, passwordReset(userId, user.email));
    });
    this.redeem = sqliteWrite(db, (redemption: Redemption, change: Change) => {
      const { tokenHash, now, session } = redemption;
      const created = 'passwordHash' in redemption.user ? redemption.user : undefined;
      // Read before any write: a STALE answer commits nothing.
      const token = tokenRow.get(tokenHash, now);
      if (!token || (!created && !byId.get(redemption.user.id))) return STALE;
      useToken.run(now, tokenHash, now);
      if (created) insertUser.run(created.id, created.email, emailKey(created.email), created.name, created.passwordHash, now);
      const user = byId.get(redemption.user.id)!;
      if (token.kind === 'invite' && insertMember.run(token.project_id, user.id, token.role, now).changes === 1) {
        changes.record(change, memberJoined(token.project_id!, user.id, user.email, token.role!));
      }
      if (token.kind === 'reset' && redemption.passwordHash !== undefined) {
        setPassword.run(redemption.passwordHash, user.id);
        endSessions.run(user.id, '');
        changes.record(change, passwordChanged(user.id, user.email));
      }
      insertSession.run(session.tokenHash, user.id, now, now, session.expiresAt);
      return byId.get(user.id)!;
    });
    this.setRole = sqliteWrite(db, (projectId: string, userId: string, role: Role, change: Change) => {
      const current = existing(projectId, userId);
      if (current.role === role) return current;
      if (role !== 'owner') keepsAnOwner(projectId, current);
      updateRole.run(role, projectId, userId);
      changes.record(change, memberChanged(projectId, userId, current.email, current.role, role));
      return member.get(projectId, userId)!;
    });
    this.removeMember = sqliteWrite(db, (projectId: string, userId: string, change: Change) => {
      const current = existing(projectId, userId);
      keepsAnOwner(projectId, current);
      deleteMember.run(projectId, userId);
      changes.record(change, memberRemoved(projectId, userId, current.email, current.role));
    });
    this.changePassword = sqliteWrite(db, (userId: string, passwordHash: string, keep: string, change: Change) => {
      const user = byId.get(userId);
      if (!user) return;
      setPassword.run(passwordHash, userId);
      endSessions.run(userId, keep);
      changes.record(change, passwordChanged(userId, user.email));
    });
    this.removeUser = sqliteWrite(db, (userId: string, change: Change) => {
      const user = byId.get(userId);
      if (!user) return;
      if (ownedAlone.all(userId).length > 0) throw lastOwner();
      // Memberships and sessions go with the row (ON DELETE CASCADE).
      deleteUser.run(userId);
      changes.record(change, userRemoved(userId, user.email));
    });
  }
}
