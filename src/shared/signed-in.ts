import type { Role } from './roles.ts';

/**
 * A signed-in person, as the accounts feature finds them from a session
 * token and as the edge hands them to handlers (src/http/session.ts).
 */
export interface SignedIn {
  userId: string;
  email: string;
  name: string;
  /** The SHA-256 of the session's token, as stored: what signing out deletes. */
  sessionId: string;
  /** Their role in each project they belong to. */
  roles: ReadonlyMap<string, Role>;
  /** When the session ends whatever happens, and when it ends unless used before (ms). */
  expiresAt: number;
  idleExpiresAt: number;
}
