/**
 * The HTTP edge: the only code that touches uWebSockets.js request and
 * response objects (with exchange.ts, gate.ts and respond.ts), and the only
 * place where an error becomes a response. This file dispatches: match the
 * route, let the gate check it, read the body if the route wants one, parse
 * the route's input (input.ts), run the handler, hand the reply to the
 * responder. The uWS rules live here:
 *  - headers, URL and query are read synchronously inside the callback;
 *  - onAborted is registered before anything asynchronous happens;
 *  - writes after the callback returned are wrapped in res.cork;
 *  - nothing touches res after it was aborted.
 */
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from '../log.ts';
import { loadUws } from '../native.ts';
import type { Authenticator } from './auth.ts';
import { readBody } from './body.ts';
import { clientAddress, type Exchange, IncomingRequest, MAX_HEAD_BYTES, RequestHead, requestId } from './exchange.ts';
import { Gate } from './gate.ts';
import { readInput } from './input.ts';
import { corsHeaders, DEFAULT_POLICY, type EdgePolicy, preflightHeaders } from './policy.ts';
import { type ProblemCode, ProblemError } from './problem.ts';
import type { Reply } from './reply.ts';
import { Responder } from './respond.ts';
import type { Route } from './route.ts';
import type { Params, Router } from './router.ts';
import { admitUser, type SessionAuthenticator, type SessionClaim, sessionEnded } from './session.ts';
import { errorReply, problemReply } from './status.ts';

const uws = loadUws();

/** What a route with path parameters may answer when they do not decode. */
export const PATH_ERRORS: readonly ProblemCode[] = ['invalid_path'];
/** What any route may answer before its handler runs: a request head over MAX_HEAD_BYTES. */
export const HEAD_ERRORS: readonly ProblemCode[] = ['headers_too_large'];
/** What any route may answer: a bug, logged. */
export const UNEXPECTED_ERRORS: readonly ProblemCode[] = ['internal_error'];

/** listen(host, port, options, cb) exists in uWS v20.30 but not in its type declarations. */
interface ListenWithOptions {
  listen(host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void): unknown;
}

export interface ServerOptions {
  router: Router<Route>;
  log: Logger;
  /** Looks up API keys for routes that declare one (doc.auth); needed when any route does. */
  auth?: Authenticator;
  /** Looks up session cookies (session.ts): without it, management routes take keys only and `session` routes cannot be served. */
  sessions?: SessionAuthenticator;
  policy?: EdgePolicy;
  /** Called once per answered or aborted request (metrics), with the problem's code on an error answer. */
  observe?: (route: Route | undefined, status: number, seconds: number, problem: ProblemCode | undefined) => void;
}

export class HttpServer {
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  private inFlight = 0;
  private draining = false;
  private idle: (() => void) | undefined;
  private readonly policy: EdgePolicy;
  private readonly gate: Gate;
  private readonly responder: Responder;

  constructor(private readonly options: ServerOptions) {
    this.policy = options.policy ?? DEFAULT_POLICY;
    for (const { method, pattern, route } of options.router.routes()) {
      if (route.doc.auth !== 'none' && !options.auth) throw new Error(`${method} ${pattern} needs a key, but the server has no authenticator`);
      if (route.body !== undefined && route.maxBody === undefined) throw new Error(`${method} ${pattern} takes a body, but sets no maxBody`);
      if (route.doc.auth === 'secret' && route.doc.access === undefined) throw new Error(`${method} ${pattern} needs a secret key, but says no doc.access`);
      if (route.doc.auth === 'session' && !options.sessions) throw new Error(`${method} ${pattern} needs a session, but the server has no session lookup`);
    }
    this.gate = new Gate(this.policy, options.auth, options.sessions !== undefined, options.log);
    this.responder = new Responder({
      answering: (ex, status) => this.answering(ex, status),
      finish: (ex, status, problem) => this.finish(ex, status, problem),
      streamFailed: (ex, error) => this.logFailure(ex, error),
      closing: () => this.draining,
    });
    this.app = uws.App();
    this.app.any('/*', (res, req) => this.handle(res, req));
  }

  /**
   * Listens on host:port (0 picks a free port) and resolves with the port.
   * The port is exclusive: uWS would otherwise share a busy port with
   * whoever holds it (SO_REUSEPORT) instead of failing.
   */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      (this.app as unknown as ListenWithOptions).listen(host, port, uws.LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
        if (!socket) {
          reject(new Error(`cannot listen on ${host}:${port}: the address is in use or not available`));
          return;
        }
        this.listenSocket = socket;
        resolve(uws.us_socket_local_port(socket));
      });
    });
  }

  /**
   * Stops accepting connections and resolves once in-flight requests are
   * answered (or after timeoutMs). It resolves one loop turn after the last
   * answer, because uWS hands corked writes to the socket in its loop: a
   * process that exits sooner cuts the last responses off.
   */
  close(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.listenSocket) uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
    return new Promise((resolve) => {
      const flushed = () => setImmediate(resolve);
      if (this.inFlight === 0) return flushed();
      const timer = setTimeout(flushed, timeoutMs);
      this.idle = () => {
        clearTimeout(timer);
        flushed();
      };
    });
  }

  private handle(res: HttpResponse, req: HttpRequest): void {
    const head = new RequestHead(req);
    const ex: Exchange = {
      res,
      method: req.getCaseSensitiveMethod(),
      path: req.getUrl(),
      head,
      id: requestId(head.get('x-request-id')),
      ip: undefined,
      tls: this.policy.trustProxy && forwardedProto(head.get('x-forwarded-proto')) === 'https',
      trustProxy: this.policy.trustProxy,
      start: performance.now(),
      aborted: false,
      sync: true,
      bodyUnread: false,
      wake: undefined,
      extraHeaders: undefined,
      route: undefined,
      logged: undefined,
    };
    this.inFlight++;
    try {
      const match = this.options.router.match(ex.method, ex.path);
      if (match.kind === 'not_found') {
        this.respond(ex, problemReply(new ProblemError('not_found', 'there is no resource at this path')));
      } else if (match.kind === 'method_not_allowed') {
        const allow = match.allow.join(', ');
        if (ex.method === 'OPTIONS') {
          const preflight =
            head.get('access-control-request-method') === '' ? undefined : preflightHeaders(match.routes, match.allow, head.get('origin'), this.policy);
          this.respond(ex, { status: 204, headers: { Allow: allow, ...preflight } });
        } else {
          this.respond(ex, problemReply(new ProblemError('method_not_allowed', `this path accepts ${allow}`, { headers: { Allow: allow } })));
        }
      } else {
        const route = match.route;
        ex.route = route;
        // Until the body is read, an answer (401, 429, …) leaves it on the wire: the connection then closes.
        ex.bodyUnread = route.maxBody !== undefined;
        ex.extraHeaders = corsHeaders(route, head.get('origin'), this.policy);
        // After the CORS headers, so that a browser sees the 431.
        const query = req.getQuery() ?? '';
        if (head.size(ex.method, ex.path, query) > MAX_HEAD_BYTES) {
          throw new ProblemError('headers_too_large', `the request line and headers are larger than ${MAX_HEAD_BYTES} bytes`);
        }
        // The raw `:project` segment: a project id needs no percent-encoding, and one that has it names no project.
        const admitted = this.gate.check(route, ex, match.params.project);
        const request = new IncomingRequest(ex, ex.method, ex.path, query);
        if (admitted !== undefined && 'token' in admitted) {
          this.run(ex, request, route, decodeParams(match.params), this.signIn(request, route, admitted, ex.tls));
        } else {
          request.principal = admitted;
          this.run(ex, request, route, decodeParams(match.params), undefined);
        }
      }
    } catch (error) {
      this.respond(ex, this.failure(ex, error));
    }
    ex.sync = false;
  }

  /** The person a session claim names, set on the request, and their principal in the project asked for; refused when the session ended. */
  private async signIn(request: IncomingRequest, route: Route, claim: SessionClaim, tls: boolean): Promise<void> {
    const user = await this.options.sessions!.signedIn(claim.token);
    if (!user) throw sessionEnded(tls);
    request.session = user;
    if (route.doc.auth === 'secret' || route.doc.access !== undefined) request.principal = admitUser(user, claim.project, route.doc);
  }

  /** Runs the handler; `signedIn`, a session's lookup, must succeed first (it runs while the body arrives). */
  private run(ex: Exchange, request: IncomingRequest, route: Route, params: Params, signedIn: Promise<void> | undefined): void {
    if (route.maxBody !== undefined) {
      this.responder.watchAbort(ex);
      request.keepHeaders();
      const length = request.header('content-length');
      const body = readBody(ex.res, route.maxBody, length === '' ? undefined : Number(length), this.policy.bodyTimeoutMs).then((bytes) => {
        ex.bodyUnread = false;
        request.body = bytes;
      });
      Promise.all([body, signedIn])
        .then(() => route.handler(request, readInput(route, request, params)))
        .then(
          (reply) => this.respond(ex, reply),
          (error) => this.respond(ex, this.failure(ex, error)),
        );
      return;
    }
    if (signedIn) {
      this.responder.watchAbort(ex);
      request.keepHeaders();
      signedIn
        .then(() => route.handler(request, readInput(route, request, params)))
        .then(
          (reply) => this.respond(ex, reply),
          (error) => this.respond(ex, this.failure(ex, error)),
        );
      return;
    }
    const reply = route.handler(request, readInput(route, request, params));
    if (reply instanceof Promise) {
      this.responder.watchAbort(ex);
      reply.then(
        (value) => this.respond(ex, value),
        (error) => this.respond(ex, this.failure(ex, error)),
      );
    } else {
      this.respond(ex, reply);
    }
  }

  private respond(ex: Exchange, reply: Reply): void {
    this.responder.respond(ex, reply);
  }

  private failure(ex: Exchange, error: unknown): Reply {
    const reply = errorReply(error);
    if (reply) return reply;
    this.logFailure(ex, error);
    return problemReply(new ProblemError('internal_error', 'the server failed to handle this request; it has been logged'));
  }

  private logFailure(ex: Exchange, error: unknown): void {
    this.options.log.error('unhandled error', {
      request_id: ex.id,
      method: ex.method,
      path: ex.path,
      error: error instanceof Error ? error.stack : String(error),
    });
  }

  /** Just before a response's last write, while uWS still answers for it: whether its line is logged, and if so its client's address. */
  private answering(ex: Exchange, status: number): void {
    ex.logged = this.options.log.wantsRequest(status);
    if (ex.logged) clientAddress(ex);
  }

  private finish(ex: Exchange, status: number, problem?: ProblemCode): void {
    const ms = performance.now() - ex.start;
    this.options.observe?.(ex.route, status, ms / 1000, problem);
    // Aborted and streamed exchanges finish after uWS let go of the response: their address was read when they went asynchronous (respond.ts).
    if (ex.logged ?? this.options.log.wantsRequest(status)) {
      const ip = clientAddress(ex);
      this.options.log.request({ method: ex.method, path: ex.path, status, duration_ms: Math.round(ms * 1000) / 1000, request_id: ex.id, ip });
    }
    if (--this.inFlight === 0 && this.idle) this.idle();
  }
}

/** The last entry of X-Forwarded-Proto: what the proxy nearest to paywalld saw. */
function forwardedProto(header: string): string {
  return header
    .slice(header.lastIndexOf(',') + 1)
    .trim()
    .toLowerCase();
}

function decodeParams(params: Params): Params {
  let decoded: Params | undefined;
  for (const name in params) {
    try {
      (decoded ??= {})[name] = decodeURIComponent(params[name]!);
    } catch {
      throw new ProblemError('invalid_path', 'the path is not valid percent-encoded UTF-8');
    }
  }
  return decoded ?? params;
}
