/**
 * What the edge enforces around every route, decided by the route's
 * documented auth: SDK routes (`auth: 'sdk'`) are called from apps and
 * browsers with a public key, so they allow any origin and are limited per
 * client IP; management routes (`auth: 'secret'`) are limited per API key and
 * reachable from a browser only for the origins an operator lists.
 */
import { type EdgeErrorCode, ProblemError } from './problem.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { Route } from './route.ts';

export interface EdgePolicy {
  /** Per client IP on SDK routes; undefined means unlimited. */
  sdkLimiter?: RateLimiter;
  /** Per API key id (per client IP without a valid key) on management routes; undefined means unlimited. */
  managementLimiter?: RateLimiter;
  /** Per client IP on the keyless store notification routes (`doc.limit: 'hooks'`); undefined means unlimited. */
  hooksLimiter?: RateLimiter;
  /** Per path of those routes (a provider of a project), whatever the address; undefined means unlimited. */
  hooksPathLimiter?: RateLimiter;
  /** Take the client IP from X-Forwarded-For, as the proxy in front of paywalld saw it. */
  trustProxy: boolean;
  /** Browser origins allowed to call the management API (`*` allows any). */
  corsOrigins: readonly string[];
  /** A request body still incomplete after this long is cut off with 408. */
  bodyTimeoutMs: number;
}

export const DEFAULT_POLICY: EdgePolicy = { trustProxy: false, corsOrigins: [], bodyTimeoutMs: 30_000 };

const ALLOWED_HEADERS = 'authorization, content-type, if-none-match, if-match';
const EXPOSED_HEADERS = 'ETag, Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE = '86400';

/** Shared by every SDK response, so the hot path allocates nothing for CORS. */
const ANY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
});

function allowedOrigin(route: Route, origin: string, policy: EdgePolicy): string | undefined {
  if (route.doc.auth === 'sdk') return '*';
  if (origin === '' || route.doc.auth !== 'secret') return undefined;
  if (policy.corsOrigins.includes('*') || policy.corsOrigins.includes(origin)) return origin;
  return undefined;
}

/** CORS headers of an actual (non-preflight) response, or undefined when the route does not allow this origin. */
export function corsHeaders(route: Route, origin: string, policy: EdgePolicy): Readonly<Record<string, string>> | undefined {
  const allow = allowedOrigin(route, origin, policy);
  if (allow === undefined) return undefined;
  if (allow === '*') return ANY_ORIGIN;
  return { 'Access-Control-Allow-Origin': allow, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' };
}

/** Headers answering a CORS preflight for a path, or undefined when no route of it allows this origin. */
export function preflightHeaders(routes: readonly Route[], allow: readonly string[], origin: string, policy: EdgePolicy): Record<string, string> | undefined {
  for (const route of routes) {
    const allowOrigin = allowedOrigin(route, origin, policy);
    if (allowOrigin === undefined) continue;
    return {
      'Access-Control-Allow-Origin': allowOrigin,
      'Access-Control-Allow-Methods': allow.join(', '),
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
      ...(allowOrigin === '*' ? {} : { Vary: 'Origin' }),
    };
  }
  return undefined;
}

/**
 * The client's address. Behind a trusted proxy it is the last X-Forwarded-For
 * entry, the one the proxy itself appended: entries left of it come from the
 * client and can be forged.
 */
export function clientIp(forwardedFor: string, remoteAddress: () => string, trustProxy: boolean): string {
  if (trustProxy && forwardedFor !== '') {
    const last = forwardedFor.slice(forwardedFor.lastIndexOf(',') + 1).trim();
    if (last !== '') return last;
  }
  return remoteAddress();
}

/** uWS's text of a loopback peer: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6 (uWS writes every group in full). */
const LOOPBACK = /^(?:127\.|::1$|(?:0000:){7}0001$|(?:0000:){5}ffff:7f)/i;

export function isLoopback(address: string): boolean {
  return LOOPBACK.test(address);
}

/** The limiter a route's requests count against, if any. */
export function limiterFor(route: Route, policy: EdgePolicy): RateLimiter | undefined {
  if (route.doc.auth === 'sdk') return policy.sdkLimiter;
  if (route.doc.auth === 'secret') return policy.managementLimiter;
  return undefined;
}

/** What the rate limits may answer a route's requests with: routes that take a key, and the store notification routes, count against a limit (when one is set). */
export function rateLimitErrors(route: Route): EdgeErrorCode[] {
  return route.doc.auth === 'none' && route.doc.limit !== 'hooks' ? [] : ['rate_limited'];
}

export function rateLimited(waitSeconds: number): ProblemError {
  return new ProblemError('rate_limited', `too many requests; retry in ${waitSeconds} s`, {
    headers: { 'Retry-After': String(waitSeconds) },
  });
}
