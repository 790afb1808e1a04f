/**
 * Signed-in people at the edge (docs/guide/teams.md): the session cookie, the
 * CSRF rule for the requests it authenticates, and the role check that
 * turns a session into a request's principal in one project. The lookup of
 * a token is the accounts feature's (SessionAuthenticator): it reads the
 * database on every request, so that a sign-out, a removal or a password
 * change ends a session on every instance at once.
 */
import { allows, rolesAllowing } from '../shared/roles.ts';
import type { SignedIn } from '../shared/signed-in.ts';
import type { Principal } from './auth.ts';
import { ProblemError } from './problem.ts';
import type { Request } from './request.ts';
import type { RouteDoc } from './route.ts';

/** Implemented by the accounts feature: the person a session token belongs to, undefined when it is unknown or expired. */
export interface SessionAuthenticator {
  signedIn(token: string): Promise<SignedIn | undefined>;
}

/** A request that came with a session cookie, whose lookup the edge awaits before the handler runs. */
export interface SessionClaim {
  token: string;
  /** The project asked for: the path's `:project`, else X-Paywalld-Project; '' when neither says. */
  project: string;
}

const SESSION_COOKIE = 'paywalld_session';
/** What accounts hand out: 32 random bytes, base64url. Anything else is no session of ours. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** The absolute lifetime, which the cookie also states (the idle expiry is the server's). */
const SESSION_LIFETIME_S = 7 * 24 * 60 * 60;

/** The session token of a Cookie header; '' without one, undefined when the cookie is there but cannot be ours. */
export function sessionToken(cookieHeader: string): string | undefined {
  for (const pair of cookieHeader.split(';')) {
    const at = pair.indexOf('=');
    if (at === -1 || pair.slice(0, at).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(at + 1).trim();
    return TOKEN.test(value) ? value : undefined;
  }
  return '';
}

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie of a new session: only its holder's browser sends it, only to this origin, never to a script. */
export function sessionCookie(token: string, secure: boolean): string {
  return cookie(token, SESSION_LIFETIME_S, secure);
}

/** The Set-Cookie that makes a browser forget its session. */
export function clearedSessionCookie(secure: boolean): string {
  return cookie('', 0, secure);
}

export function sessionEnded(secure: boolean): ProblemError {
  return new ProblemError('invalid_session', 'the session has ended (signed out, expired or unknown); sign in again', {
    headers: { 'Set-Cookie': clearedSessionCookie(secure) },
  });
}

/** The signed-in person of a request to a route that declares a session (the edge has checked it). */
export function signedInOf(req: Request): SignedIn {
  if (!req.session) throw new Error(`${req.method} ${req.path} reads a session its route does not require (doc.auth)`);
  return req.session;
}

/**
 * This server's origin as the browser sees it: https when the request came
 * over TLS, and the host the proxy says it forwarded for (X-Forwarded-Host,
 * read only behind --trust-proxy), else the Host header.
 */
export function originOf(tls: boolean, host: string, forwardedHost: string): string {
  return `${tls ? 'https' : 'http'}://${forwardedHost || host}`;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser sends the cookie with any request to this origin, including one
 * another site's page makes it send: a change authenticated by the cookie
 * must carry a header no cross-site form or simple request can set, and,
 * when the browser names the page's origin, come from this server's own.
 */
export function checkCsrf(method: string, requestHeader: string, origin: string, ownOrigin: string): void {
  if (SAFE_METHODS.has(method)) return;
  if (requestHeader !== '1') {
    throw new ProblemError('csrf_rejected', 'a change made with a session cookie needs the header X-Paywalld-Request: 1');
  }
  if (origin !== '' && origin !== ownOrigin)
    throw new ProblemError('csrf_rejected', "a change made with a session cookie must come from this server's own pages");
}

/**
 * The principal of a signed-in person in the project asked for (the only
 * one they belong to when none is named), or the refusal: 400
 * project_required, 403 forbidden naming the role needed.
 */
export function admitUser(user: SignedIn, project: string, doc: RouteDoc): Principal {
  let projectId = project;
  if (projectId === '') {
    if (user.roles.size === 0) throw new ProblemError('forbidden', 'you are a member of no project yet: ask an owner to invite you');
    if (user.roles.size > 1) {
      throw new ProblemError('project_required', 'you belong to several projects: name one with the header X-Paywalld-Project: ID');
    }
    projectId = user.roles.keys().next().value!;
  }
  const role = user.roles.get(projectId);
  if (role === undefined) throw new ProblemError('forbidden', 'you are not a member of this project');
  const access = doc.access!;
  if (!allows(role, access)) throw new ProblemError('forbidden', `this needs the ${rolesAllowing(access)} role; you are ${role} in this project`);
  return { projectId, scope: 'secret', actor: { type: 'user', id: user.userId, label: user.email }, role };
}
