/**
 * Authentication at the edge, from the route's declaration (`doc.auth`)
 * and the request's headers alone: it runs before any body byte is read,
 * and handlers only read the principal it found. Only the edge reads the
 * Authorization header, so the rate limiter, auth and handlers can never
 * disagree about it; when a request carries it twice, the first one counts
 * (what uWS's getHeader returns, and what the edge copies for body routes).
 */
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';
import { type EdgeErrorCode, ProblemError } from './problem.ts';
import type { Request } from './request.ts';
import type { RouteDoc } from './route.ts';

/** Who a request acts for: a key, or a signed-in person in one of their projects (session.ts). */
export interface Principal {
  projectId: string;
  /** A key's scope; a signed-in person acts with management scope, within their role. */
  scope: 'sdk' | 'secret';
  /** Named in the audit entries of the request's changes. */
  actor: Change['actor'];
  /** A signed-in person's role in the project; undefined for a key, which may do everything its scope allows. */
  role?: Role;
}

/** Implemented by the key registry; the http room only knows this shape. */
export interface Authenticator {
  lookup(token: string): Principal | undefined;
  /** No key is longer: a longer token is refused without a lookup. */
  readonly maxTokenLength: number;
}

/** What the Authorization header says: a known key, or why there is none. */
type Identity = Principal | 'missing' | 'malformed' | 'unknown';

const BEARER = /^Bearer +(\S+) *$/i;

/** Reads the Authorization header without throwing, so that the rate limiter can key on the result before auth answers. */
export function identify(authorization: string, auth: Authenticator): Identity {
  if (authorization === '') return 'missing';
  const match = BEARER.exec(authorization);
  if (!match) return 'malformed';
  const token = match[1]!;
  if (token.length > auth.maxTokenLength) return 'unknown';
  return auth.lookup(token) ?? 'unknown';
}

/**
 * The principal a route's request acts for, or the 401/403 that refuses it.
 * `secret` routes need a secret key; `sdk` routes take either scope (a
 * secret key may do everything an sdk key may), and with `keyOptional` no
 * key at all, but never a broken or unknown one.
 */
export function admit(identity: Identity, doc: RouteDoc): Principal | undefined {
  if (identity === 'missing') {
    if (doc.keyOptional) return undefined;
    throw new ProblemError('missing_api_key', 'this endpoint needs an API key: Authorization: Bearer <API key>', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  if (identity === 'malformed') {
    throw new ProblemError('invalid_authorization', 'the Authorization header must be "Bearer <API key>"', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  if (identity === 'unknown') {
    throw new ProblemError('invalid_api_key', 'the API key is unknown or has been revoked', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  if (doc.auth === 'secret' && identity.scope !== 'secret') {
    throw new ProblemError('insufficient_scope', 'this endpoint needs a secret key; sdk keys may only resolve paywalls and send events', {
      headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' },
    });
  }
  return identity;
}

/** The codes admit() and the session checks (session.ts) may answer a route's requests with. */
export function authErrors(doc: RouteDoc, method: string): EdgeErrorCode[] {
  if (doc.auth === 'none') return [];
  const codes: EdgeErrorCode[] = doc.auth === 'session' ? [] : ['invalid_authorization', 'invalid_api_key'];
  if (doc.auth === 'sdk' && !doc.keyOptional) codes.push('missing_api_key');
  if (doc.auth === 'secret') codes.push('missing_api_key', 'insufficient_scope');
  if (doc.auth === 'secret' || (doc.auth === 'sdk' && doc.access !== undefined)) codes.push('project_required', 'forbidden');
  if (doc.auth === 'secret' || doc.auth === 'session' || doc.access !== undefined) codes.push('invalid_session');
  if ((doc.auth === 'secret' || doc.auth === 'session') && method !== 'GET') codes.push('csrf_rejected');
  return codes;
}

/** The project of a request to a route that declares a key (the edge has checked it). */
export function projectOf(req: Request): string {
  if (!req.principal) throw new Error(`${req.method} ${req.path} reads a key its route does not require (doc.auth)`);
  return req.principal.projectId;
}

/** Who makes a request's change and from where, for its audit entry: the key or the signed-in person. */
export function changeOf(req: Request): Change {
  const actor = req.principal?.actor ?? (req.session && { type: 'user', id: req.session.userId, label: req.session.email });
  if (!actor) throw new Error(`${req.method} ${req.path} records a change, but its route names nobody (doc.auth)`);
  return { actor, ip: req.ip };
}
