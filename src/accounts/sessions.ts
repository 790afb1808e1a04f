/**
 * Signing in and out, and the edge's session lookup (SessionAuthenticator).
 * A session is a random token in an HttpOnly cookie whose SHA-256 is stored;
 * every request reads it from the database, so a sign-out, a password
 * change, a removal or an expiry holds on every instance from the next
 * request. Idle sessions end after 12 hours, every session after 7 days.
 */
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import type { SignedIn } from '../shared/signed-in.ts';
import { decoyHash, hashPassword, verifyPassword } from './password.ts';
import { invalidCredentials } from './refusals.ts';
import type { Me } from './schema.ts';
import type { SessionStore } from './session-store.ts';
import { type AccountStore, emailKey, type UserRow } from './store.ts';
import { retryAfterSeconds, THROTTLE_LIMIT, THROTTLE_WINDOW_MS } from './throttle.ts';
import { hashToken, newToken } from './token.ts';

const IDLE_MS = 12 * 60 * 60 * 1000;
export const LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** A session's last use is written at most once a minute: the idle expiry needs no finer grain. */
const TOUCH_EVERY_MS = 60 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The edge's session lookup (src/http/session.ts, SessionAuthenticator) is signedIn(). */
export class Sessions {
  constructor(
    private readonly accounts: AccountStore,
    private readonly store: SessionStore,
  ) {}

  async signedIn(token: string): Promise<SignedIn | undefined> {
    const hash = hashToken(token);
    const now = Date.now();
    const found = await this.store.find(hash);
    if (!found) return undefined;
    const { session, roles } = found;
    if (now >= session.expires_at || now >= session.last_seen_at + IDLE_MS) {
      await this.store.end(hash);
      return undefined;
    }
    let lastSeen = session.last_seen_at;
    if (now - lastSeen >= TOUCH_EVERY_MS) {
      await this.store.touch(hash, now);
      lastSeen = now;
    }
    return {
      userId: session.user_id,
      email: session.email,
      name: session.name,
      sessionId: hash,
      roles: new Map(roles),
      expiresAt: session.expires_at,
      idleExpiresAt: Math.min(session.expires_at, lastSeen + IDLE_MS),
    };
  }

  /**
   * A new session for the email and password, or 401 invalid_credentials,
   * the same answer at the same cost whether the email has an account or
   * not; 429 sign_in_throttled after too many failures (throttle.ts).
   */
  async login(email: string, password: string, ip: string): Promise<{ token: string; user: UserRow }> {
    const now = Date.now();
    const since = now - THROTTLE_WINDOW_MS;
    const account = emailKey(email.trim());
    const [accountFailures, ipFailures] = await this.store.failures([`account:${account}`, `ip:${ip}`], since);
    const wait = Math.max(retryAfterSeconds(accountFailures!, now), retryAfterSeconds(ipFailures!, now));
    if (wait > 0) {
      throw new DomainError('sign_in_throttled', `too many failed sign-ins for this account or from this address; try again in ${wait} s`, {
        retryAfterSeconds: wait,
      });
    }
    // Awaited by every sign-in (made once, by the first): the first one with an unknown email costs what any other does.
    const decoy = await decoyHash();
    const user = await this.accounts.userByEmail(account);
    const matches = await verifyPassword(user?.password_hash ?? decoy, password);
    if (!user || !matches) {
      const change: Change = { actor: { type: 'user', id: user?.id ?? '', label: account }, ip };
      await this.store.recordFailure({ account, ip, now }, since, THROTTLE_LIMIT, change);
      throw invalidCredentials();
    }
    return { token: await this.open(user.id, now), user };
  }

  /** Opens a session for a user: its token, for the cookie. */
  private async open(userId: string, now: number): Promise<string> {
    const { token, hash } = newToken();
    await this.store.create(hash, userId, now, now + LIFETIME_MS);
    return token;
  }

  async logout(signedIn: SignedIn): Promise<void> {
    await this.store.end(signedIn.sessionId);
  }

  async me(signedIn: SignedIn): Promise<Me> {
    const memberships = await this.accounts.memberships(signedIn.userId);
    return {
      user: { id: signedIn.userId, email: signedIn.email, name: signedIn.name },
      projects: memberships.map((m) => ({ id: m.project_id, name: m.project_name, role: m.role })),
      session: { expires_at: iso(signedIn.expiresAt), idle_expires_at: iso(signedIn.idleExpiresAt) },
    };
  }

  /** Sets a new password after checking the current one; every other session of the user ends. */
  async changePassword(signedIn: SignedIn, current: string, next: string, change: Change): Promise<void> {
    const user = await this.accounts.user(signedIn.userId);
    if (!user || !(await verifyPassword(user.password_hash, current))) throw invalidCredentials();
    await this.accounts.changePassword(user.id, await hashPassword(next), signedIn.sessionId, change);
  }

  /** Deletes sessions past their expiry and failures past the throttle's window (the server does it hourly). */
  prune(): Promise<void> {
    const now = Date.now();
    return this.store.prune(now, IDLE_MS, now - THROTTLE_WINDOW_MS);
  }
}
