/**
 * What the edge checks before a route's handler runs or its body is read,
 * from the route's declaration and the request's headers alone: who the
 * request acts for (auth.ts; a session cookie's claim, looked up after, and
 * its CSRF rule: session.ts) and whether its client may send more (the rate
 * limits of policy.ts).
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../log.ts';
import { type Authenticator, admit, identify, type Principal } from './auth.ts';
import { clientIp, type EdgePolicy, isLoopback, limiterFor, rateLimited } from './policy.ts';
import { ProblemError } from './problem.ts';
import type { Route } from './route.ts';
import { checkCsrf, originOf, type SessionClaim, sessionEnded, sessionToken } from './session.ts';

/** What the edge knows of a request beside its headers: whether it came over TLS, and the project its path names (`:project`). */
interface Arrival {
  tls: boolean;
  project: string | undefined;
}

export class Gate {
  private proxyWarned = false;

  constructor(
    private readonly policy: EdgePolicy,
    private readonly auth: Authenticator | undefined,
    /** Whether the server looks sessions up: without it, a cookie is ignored. */
    private readonly sessions: boolean,
    private readonly log: Logger,
  ) {}

  /**
   * The request's principal (undefined on public routes and keyless
   * requests), the session claim the edge must look up before the handler
   * runs, or the 401/403/429 that refuses it. Call inside the uWS callback.
   */
  check(route: Route, req: HttpRequest, res: HttpResponse, arrival: Arrival): Principal | SessionClaim | undefined {
    const doc = route.doc;
    if (!this.policy.trustProxy && !this.proxyWarned) this.warnAboutProxy(req, res);
    if (doc.auth === 'none') {
      if (doc.limit === 'hooks') this.limitHooks(req, res);
      return undefined;
    }
    if (doc.auth === 'session') return this.claim(req, arrival, '') ?? this.notSignedIn();
    if (!this.auth) throw new Error(`${doc.summary}: the route needs a key but the server has no authenticator`);
    const identity = identify(req.getHeader('authorization'), this.auth);
    const limiter = limiterFor(route, this.policy);
    if (limiter) {
      // Management routes count per key, so one busy integration cannot starve another behind the same IP;
      // requests without a valid key, and SDK requests (whose key is public), count per client IP.
      const bucket = doc.auth === 'secret' && typeof identity === 'object' ? identity.actor.id : this.client(req, res);
      const wait = bucket === undefined ? 0 : limiter.take(bucket);
      if (wait > 0) throw rateLimited(wait);
    }
    // Without an Authorization header, a management route (or one that says what a person needs) takes a session cookie; a key always wins over a cookie.
    if (identity === 'missing' && (doc.auth === 'secret' || doc.access !== undefined)) {
      const claim = this.claim(req, arrival, arrival.project ?? req.getHeader('x-paywalld-project'));
      if (claim) return claim;
    }
    const principal = admit(identity, doc);
    if (principal && arrival.project !== undefined && principal.projectId !== arrival.project) {
      throw new ProblemError('forbidden', "this key belongs to another project: a key acts only on its own project's members and log");
    }
    return principal;
  }

  /** The session a request's cookie claims, its CSRF rule checked; undefined without a session cookie. */
  private claim(req: HttpRequest, arrival: Arrival, project: string): SessionClaim | undefined {
    const token = this.sessions ? sessionToken(req.getHeader('cookie')) : '';
    if (token === '') return undefined;
    if (token === undefined) throw sessionEnded(arrival.tls);
    const ownOrigin = originOf(arrival.tls, req.getHeader('host'), this.policy.trustProxy ? req.getHeader('x-forwarded-host') : '');
    checkCsrf(req.getCaseSensitiveMethod(), req.getHeader('x-paywalld-request'), req.getHeader('origin'), ownOrigin);
    return { token, project };
  }

  private notSignedIn(): never {
    throw new ProblemError('invalid_session', 'sign in first: this needs a session (POST /api/auth/login)');
  }

  /**
   * A store notification: per client IP first, then per path (one
   * provider of one project), which bounds what many addresses together
   * can make the server verify for one project.
   */
  private limitHooks(req: HttpRequest, res: HttpResponse): void {
    const { hooksLimiter, hooksPathLimiter } = this.policy;
    const client = hooksLimiter && this.client(req, res);
    const wait = (client === undefined ? 0 : hooksLimiter!.take(client)) || (hooksPathLimiter?.take(req.getUrl()) ?? 0);
    if (wait > 0) throw rateLimited(wait);
  }

  /**
   * The client IP a bucket is keyed by; undefined when it cannot be told:
   * a loopback peer that forwards for others (a proxy without
   * --trust-proxy) is not one client, and limiting it would throttle every
   * user behind it at once.
   */
  private client(req: HttpRequest, res: HttpResponse): string | undefined {
    const forwardedFor = req.getHeader('x-forwarded-for');
    const ip = clientIp(forwardedFor, () => remoteAddress(res), this.policy.trustProxy);
    if (!this.policy.trustProxy && forwardedFor !== '' && isLoopback(ip)) return undefined;
    return ip;
  }

  /** Once per process: a proxy on this machine forwards requests, but paywalld was not told to trust it. */
  private warnAboutProxy(req: HttpRequest, res: HttpResponse): void {
    if (req.getHeader('x-forwarded-for') === '' || !isLoopback(remoteAddress(res))) return;
    this.proxyWarned = true;
    this.log.warn('requests arrive through a proxy on this machine (X-Forwarded-For) but --trust-proxy is off', {
      effect: 'every client looks like the proxy: SDK rate limits are not applied to it, and logs show no client address',
      fix: 'start with --trust-proxy (PAYWALLD_TRUST_PROXY=true) when the proxy sets X-Forwarded-For',
    });
  }
}

export function remoteAddress(res: HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}
