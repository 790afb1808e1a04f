/**
 * A project's members and the links that bring people in: invitations
 * (72 hours, once) and password resets, both redeemed by accept(), which
 * creates the account (or checks the existing one's password) and signs in.
 */
import { newId } from '../ids.ts';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import type { Role } from '../shared/roles.ts';
import { STALE } from '../shared/stale.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { invalidCredentials, invitationInvalid } from './refusals.ts';
import { type Accept, type Member, passwordProblem } from './schema.ts';
import { LIFETIME_MS } from './sessions.ts';
import type { AccountStore, MemberRow, Redemption, UserRow } from './store.ts';
import { hashToken, newToken } from './token.ts';

const INVITATION_LIFETIME_MS = 72 * 60 * 60 * 1000;

/** Where a link is opened: the dashboard's accept page, the token in the fragment, which no request line or log carries. */
export function invitationUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/dashboard/#/accept/${token}`;
}

function memberOf(row: MemberRow): Member {
  return { id: row.user_id, email: row.email, name: row.name, role: row.role, joined_at: new Date(row.created_at).toISOString() };
}

function invalid(path: string, message: string): DomainError {
  return new DomainError('validation_failed', 'the request is invalid; see errors', { errors: [{ path, message }] });
}

function newPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw invalid('/password', problem);
  return password;
}

export class Members {
  constructor(private readonly accounts: AccountStore) {}

  async list(projectId: string): Promise<Member[]> {
    return (await this.accounts.members(projectId)).map(memberOf);
  }

  /**
   * An invitation into the project with a role: its token, for the link
   * (invitationUrl), shown once. `email` null lets whoever holds the link
   * name theirs (a first start's owner).
   */
  async invite(projectId: string, email: string | null, role: Role, change: Change): Promise<{ token: string; expires_at: string }> {
    const now = Date.now();
    const { token, hash } = newToken();
    const expiresAt = now + INVITATION_LIFETIME_MS;
    await this.accounts.invite({ tokenHash: hash, projectId, email, role, now, expiresAt }, change);
    return { token, expires_at: new Date(expiresAt).toISOString() };
  }

  async setRole(projectId: string, userId: string, role: Role, change: Change): Promise<Member> {
    return memberOf(await this.accounts.setRole(projectId, userId, role, change));
  }

  async remove(projectId: string, userId: string, change: Change): Promise<void> {
    await this.accounts.removeMember(projectId, userId, change);
  }

  /** A password reset link's token for an account (`paywalld users reset-password`): its sessions end at once. */
  async reset(email: string, change: Change): Promise<{ token: string; expires_at: string }> {
    const user = await this.userOf(email);
    const now = Date.now();
    const { token, hash } = newToken();
    const expiresAt = now + INVITATION_LIFETIME_MS;
    await this.accounts.issueReset(user.id, hash, now, expiresAt, change);
    return { token, expires_at: new Date(expiresAt).toISOString() };
  }

  /** Deletes an account with its roles and sessions (`paywalld users remove`). */
  async removeUser(email: string, change: Change): Promise<void> {
    await this.accounts.removeUser((await this.userOf(email)).id, change);
  }

  private async userOf(email: string): Promise<UserRow> {
    const user = await this.accounts.userByEmail(email);
    if (!user) throw new DomainError('user_not_found', `no account with the email ${email}`);
    return user;
  }

  /**
   * Redeems an invitation or reset link and signs in: a new account with
   * the password given (at least 10 characters), or an existing one whose
   * own password must be given (the role is added to it), or a reset's new
   * password. 400 invitation_invalid for a link unknown, used or expired.
   */
  async accept(input: Accept, ip: string): Promise<{ token: string; user: UserRow }> {
    const now = Date.now();
    const tokenHash = hashToken(input.token);
    const invitation = await this.accounts.invitation(tokenHash, now);
    if (!invitation) throw invitationInvalid();
    const email = invitation.email ?? input.email;
    if (email === undefined) throw invalid('/email', 'this link names no email: give the email of the new account');
    const existing = await this.accounts.userByEmail(email);
    let user: Redemption['user'];
    let passwordHash: string | undefined;
    if (invitation.kind === 'reset') {
      if (!existing) throw invitationInvalid();
      passwordHash = await hashPassword(newPassword(input.password));
      user = { id: existing.id };
    } else if (existing) {
      if (!(await verifyPassword(existing.password_hash, input.password))) throw invalidCredentials();
      user = { id: existing.id };
    } else {
      user = { id: newId('usr'), email, name: input.name ?? email, passwordHash: await hashPassword(newPassword(input.password)) };
    }
    const session = newToken();
    const change: Change = { actor: { type: 'user', id: user.id, label: email }, ip };
    const redeemed = await this.accounts.redeem(
      { tokenHash, now, user, ...(passwordHash === undefined ? {} : { passwordHash }), session: { tokenHash: session.hash, expiresAt: now + LIFETIME_MS } },
      change,
    );
    if (redeemed === STALE) throw invitationInvalid();
    return { token: session.token, user: redeemed };
  }
}
