import { ProblemError } from './problem.ts';

/** Who a request acts for, once its Bearer key is known. */
export interface Principal {
  projectId: string;
  keyId: string;
  scope: 'sdk' | 'secret';
}

/** Implemented by the key registry; the http room only knows this shape. */
export interface Authenticator {
  lookup(token: string): Principal | undefined;
}

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of an `Authorization: Bearer …` header, or undefined when the header is absent. */
export function bearerToken(authorization: string): string | undefined {
  if (authorization === '') return undefined;
  const match = BEARER.exec(authorization);
  if (!match) {
    throw new ProblemError(401, 'invalid_authorization', 'the Authorization header must be "Bearer <API key>"', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  return match[1];
}

/**
 * Authenticates a request. `scope` is the scope the endpoint needs: a secret
 * key may do everything an sdk key may, never the other way round.
 */
export function authenticate(authorization: string, auth: Authenticator, scope: 'sdk' | 'secret'): Principal {
  const token = bearerToken(authorization);
  if (token === undefined) {
    throw new ProblemError(401, 'missing_api_key', 'this endpoint needs an API key: Authorization: Bearer <API key>', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  const principal = auth.lookup(token);
  if (!principal) {
    throw new ProblemError(401, 'invalid_api_key', 'the API key is unknown or has been revoked', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  if (scope === 'secret' && principal.scope !== 'secret') {
    throw new ProblemError(403, 'insufficient_scope', 'this endpoint needs a secret key; sdk keys may only resolve paywalls and send events', {
      headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' },
    });
  }
  return principal;
}
