/**
 * People and their roles per project, invitations and password resets.
 * The interface every backend implements (CONTRIBUTING.md, "The storage
 * seam"): each method is one transaction, and each change appends its audit
 * entry (`change`: who) in it. Sessions and sign-in failures: session-store.ts.
 */
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';
import type { Stale } from '../shared/stale.ts';

export interface UserRow {
  id: string;
  /** As typed; unique compared case-insensitively (`email_key`). */
  email: string;
  name: string;
  password_hash: string;
  created_at: number;
}

export interface Membership {
  project_id: string;
  project_name: string;
  role: Role;
}

export interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role: Role;
  created_at: number;
}

export interface InvitationRow {
  /** An invitation into a project, or a password reset (`paywalld users reset-password`). */
  kind: 'invite' | 'reset';
  project_id: string | null;
  /** Whose it is; null for a first start's invitation, whose holder names their email. */
  email: string | null;
  role: Role | null;
  expires_at: number;
  used_at: number | null;
}

export interface NewInvitation {
  tokenHash: string;
  projectId: string;
  email: string | null;
  role: Role;
  now: number;
  expiresAt: number;
}

/** Redeeming an invitation or reset token: who it signs in, and the session it opens, in the token's transaction. */
export interface Redemption {
  tokenHash: string;
  now: number;
  /** An account to create, or the existing one's id. */
  user: { id: string } | { id: string; email: string; name: string; passwordHash: string };
  /** A reset's new password. */
  passwordHash?: string;
  session: { tokenHash: string; expiresAt: number };
}

/** The email as compared: lower-cased, so that Ann@Example.com and ann@example.com are one account. */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

export interface AccountStore {
  userByEmail(email: string): Promise<UserRow | undefined>;
  user(id: string): Promise<UserRow | undefined>;
  /** Every account, oldest first (the CLI's list). */
  users(): Promise<UserRow[]>;
  /** The projects a user belongs to and their role in each, oldest project first. */
  memberships(userId: string): Promise<Membership[]>;
  /** A project's members, oldest first. */
  members(projectId: string): Promise<MemberRow[]>;
  /** An unused, unexpired invitation or reset, by its token's hash; undefined otherwise. */
  invitation(tokenHash: string, now: number): Promise<InvitationRow | undefined>;
  /** Stores an invitation (already_member when its email is a member of the project). */
  invite(invitation: NewInvitation, change: Change): Promise<void>;
  /** A reset token for a user, whose sessions all end at once. */
  issueReset(userId: string, tokenHash: string, now: number, expiresAt: number, change: Change): Promise<void>;
  /**
   * Marks the token used, creates the account or adds the role (an
   * invitation) or sets the password and ends every session (a reset), and
   * opens the session, all at once; STALE when the token was used or
   * expired meanwhile. The change is the account's own.
   */
  redeem(redemption: Redemption, change: Change): Promise<UserRow | Stale>;
  /** member_not_found; last_owner when it would leave the project without an owner. */
  setRole(projectId: string, userId: string, role: Role, change: Change): Promise<MemberRow>;
  /** Removes the member (member_not_found, last_owner): their requests in the project are refused from the next one. */
  removeMember(projectId: string, userId: string, change: Change): Promise<void>;
  /** Sets the password and ends the user's sessions but `keep` (the one that changed it). */
  changePassword(userId: string, passwordHash: string, keep: string, change: Change): Promise<void>;
  /** Deletes the account, its roles and sessions (last_owner when it is some project's only owner). */
  removeUser(userId: string, change: Change): Promise<void>;
}
