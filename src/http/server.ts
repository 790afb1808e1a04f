/**
 * The HTTP edge: the only code that touches uWebSockets.js request and
 * response objects, and the only place where a ProblemError (or any other
 * exception) becomes a response. The uWS rules live here:
 *  - headers, URL and query are read synchronously inside the callback;
 *  - onAborted is registered before anything asynchronous happens;
 *  - writes after the callback returned are wrapped in res.cork;
 *  - nothing touches res after it was aborted.
 */
import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from '../log.ts';
import { loadUws } from '../native.ts';
import { readBody } from './body.ts';
import { joinedHeaderBlock } from './header-block.ts';
import { parseQuery, type QueryPairs } from './query.ts';
import { clientIp, corsHeaders, DEFAULT_POLICY, type EdgePolicy, limiterFor, preflightHeaders, rateLimited } from './policy.ts';
import { DomainError } from '../shared/errors.ts';
import { ProblemError, problemBody } from './problem.ts';
import { problemOf } from './status.ts';
import type { Body, Reply } from './reply.ts';
import type { Request } from './request.ts';
import type { Route } from './route.ts';
import type { Params, Router } from './router.ts';

const uws = loadUws();

/** listen(host, port, options, cb) exists in uWS v20.30 but not in its type declarations. */
interface ListenWithOptions {
  listen(host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void): unknown;
}

/** Status lines as bytes, which uWS reads in place (a string it converts on every call). */
const statusLines = new Map<number, Buffer>();
function statusLine(status: number): Buffer {
  let line = statusLines.get(status);
  if (!line) statusLines.set(status, (line = Buffer.from(`${status} ${STATUS_CODES[status] ?? 'Unknown'}`)));
  return line;
}
const REQUEST_ID_HEADER = Buffer.from('X-Request-Id');

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const idPrefix = Math.random().toString(36).slice(2, 8);
let idCounter = 0;
function requestId(incoming: string): string {
  return REQUEST_ID.test(incoming) ? incoming : `${idPrefix}-${(++idCounter).toString(36)}`;
}

interface Exchange {
  res: HttpResponse;
  method: string;
  path: string;
  id: string;
  start: number;
  aborted: boolean;
  /** Still inside the uWS callback: writes need no cork, req is still valid. */
  sync: boolean;
  /** Woken when the connection is aborted, so a stream waiting for onWritable can stop. */
  wake: (() => void) | undefined;
  /** Headers every response to this request carries, whatever the handler answers (CORS). */
  extraHeaders: Readonly<Record<string, string>> | undefined;
  /** The matched route, undefined for 404/405/OPTIONS answered by the edge. */
  route: Route | undefined;
}

class IncomingRequest implements Request {
  private headers: Map<string, string> | undefined;
  private parsedQuery: QueryPairs | undefined;
  body: Buffer = EMPTY;

  constructor(
    private readonly req: HttpRequest,
    private readonly exchange: Exchange,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly params: Params,
  ) {}

  get id(): string {
    return this.exchange.id;
  }

  header(name: string): string {
    if (this.headers) return this.headers.get(name) ?? '';
    if (!this.exchange.sync) throw new Error(`header "${name}" read after the request callback returned; read headers before the first await`);
    return this.req.getHeader(name);
  }

  /** Copies every header, for routes whose handler runs after the body arrived. */
  keepHeaders(): void {
    if (this.headers) return;
    const headers = new Map<string, string>();
    this.req.forEach((key, value) => headers.set(key, value));
    this.headers = headers;
  }

  query(): QueryPairs {
    return (this.parsedQuery ??= parseQuery(this.rawQuery));
  }
}

const EMPTY = Buffer.alloc(0);

export interface ServerOptions {
  router: Router<Route>;
  log: Logger;
  policy?: EdgePolicy;
  /** Called once per answered or aborted request (metrics). */
  observe?: (route: Route | undefined, status: number, seconds: number) => void;
}

export class HttpServer {
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  private inFlight = 0;
  private draining = false;
  private idle: (() => void) | undefined;
  private readonly policy: EdgePolicy;

  constructor(private readonly options: ServerOptions) {
    this.policy = options.policy ?? DEFAULT_POLICY;
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
    const ex: Exchange = {
      res,
      method: req.getCaseSensitiveMethod(),
      path: req.getUrl(),
      id: requestId(req.getHeader('x-request-id')),
      start: performance.now(),
      aborted: false,
      sync: true,
      wake: undefined,
      extraHeaders: undefined,
      route: undefined,
    };
    this.inFlight++;
    try {
      const match = this.options.router.match(ex.method, ex.path);
      if (match.kind === 'not_found') {
        this.respond(ex, problemReply(new ProblemError(404, 'not_found', 'there is no resource at this path')));
      } else if (match.kind === 'method_not_allowed') {
        const allow = match.allow.join(', ');
        if (ex.method === 'OPTIONS') {
          const preflight = req.getHeader('access-control-request-method') === '' ? undefined : preflightHeaders(match.routes, match.allow, req.getHeader('origin'), this.policy);
          this.respond(ex, { status: 204, headers: { Allow: allow, ...preflight } });
        } else {
          this.respond(ex, problemReply(new ProblemError(405, 'method_not_allowed', `this path accepts ${allow}`, { headers: { Allow: allow } })));
        }
      } else {
        const route = match.route;
        ex.route = route;
        ex.extraHeaders = corsHeaders(route, req.getHeader('origin'), this.policy);
        const limiter = limiterFor(route, this.policy);
        if (limiter) {
          // Management routes count per presented key, so one busy integration cannot starve another behind the same IP.
          const authorization = route.doc.auth === 'secret' ? req.getHeader('authorization') : '';
          const wait = limiter.take(authorization || clientIp(req.getHeader('x-forwarded-for'), () => remoteAddress(res), this.policy.trustProxy));
          if (wait > 0) throw rateLimited(wait);
        }
        const request = new IncomingRequest(req, ex, ex.method, ex.path, req.getQuery() ?? '', decodeParams(match.params));
        this.run(ex, request, route);
      }
    } catch (error) {
      this.respond(ex, this.failure(ex, error));
    }
    ex.sync = false;
  }

  private run(ex: Exchange, request: IncomingRequest, route: Route): void {
    if (route.maxBody !== undefined) {
      this.watchAbort(ex);
      request.keepHeaders();
      const length = request.header('content-length');
      readBody(ex.res, route.maxBody, length === '' ? undefined : Number(length), this.policy.bodyTimeoutMs)
        .then((body) => {
          request.body = body;
          return route.handler(request);
        })
        .then(
          (reply) => this.respond(ex, reply),
          (error) => this.respond(ex, this.failure(ex, error)),
        );
      return;
    }
    const reply = route.handler(request);
    if (reply instanceof Promise) {
      this.watchAbort(ex);
      reply.then(
        (value) => this.respond(ex, value),
        (error) => this.respond(ex, this.failure(ex, error)),
      );
    } else {
      this.respond(ex, reply);
    }
  }

  private watchAbort(ex: Exchange): void {
    ex.res.onAborted(() => {
      ex.aborted = true;
      ex.wake?.();
      this.finish(ex, 499);
    });
  }

  private failure(ex: Exchange, error: unknown): Reply {
    if (error instanceof ProblemError) return problemReply(error);
    if (error instanceof DomainError) return problemReply(problemOf(error));
    this.options.log.error('unhandled error', {
      request_id: ex.id,
      method: ex.method,
      path: ex.path,
      error: error instanceof Error ? error.stack : String(error),
    });
    return problemReply(new ProblemError(500, 'internal_error', 'the server failed to handle this request; it has been logged'));
  }

  private respond(ex: Exchange, reply: Reply): void {
    if (ex.aborted) return;
    const body = reply.body;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      if (ex.sync) {
        // A stream outlives the uWS callback even when the handler answered synchronously.
        this.watchAbort(ex);
        this.writeHead(ex, reply);
      } else {
        ex.res.cork(() => this.writeHead(ex, reply));
      }
      void this.stream(ex, body);
      return;
    }
    // 408 and 413 stop reading the body mid-stream, so the connection cannot carry another request.
    const close = this.draining || reply.status === 413 || reply.status === 408;
    const write = () => {
      this.writeHead(ex, reply);
      if (ex.method === 'HEAD' || reply.status === 204 || reply.status === 304) {
        // In uWS v20.30 any argument to endWithoutBody (even undefined) is taken as a length still
        // to come, so it is called bare and a HEAD response's length is written by hand.
        if (ex.method === 'HEAD' && body !== undefined) ex.res.writeHeader('Content-Length', String(byteLength(body)));
        ex.res.endWithoutBody();
      } else {
        ex.res.end(body, close);
      }
    };
    if (ex.sync) write();
    else ex.res.cork(write);
    this.finish(ex, reply.status);
  }

  /** Status line and headers; the caller corks when outside the uWS callback. */
  private writeHead(ex: Exchange, reply: Reply): void {
    ex.res.writeStatus(statusLine(reply.status));
    ex.res.writeHeader(REQUEST_ID_HEADER, ex.id);
    const block = joinedHeaderBlock(ex.extraHeaders, reply.headers);
    if (block) ex.res.writeHeader(block.name, block.value);
  }

  /** Streams chunks, waiting for the socket to drain whenever uWS reports backpressure. */
  private async stream(ex: Exchange, chunks: AsyncIterable<Body> | Iterable<Body>): Promise<void> {
    let status = 200;
    try {
      for await (const chunk of chunks) {
        if (ex.aborted) return;
        let drained = true;
        ex.res.cork(() => {
          drained = ex.res.write(chunk);
        });
        if (!drained) await this.writable(ex);
        if (ex.aborted) return;
      }
    } catch (error) {
      // Headers are out already: all that is left is to log and cut the response short.
      this.failure(ex, error);
      status = 500;
      if (!ex.aborted) ex.res.close();
      return;
    }
    if (!ex.aborted) ex.res.cork(() => ex.res.end());
    this.finish(ex, status);
  }

  private writable(ex: Exchange): Promise<void> {
    return new Promise((resolve) => {
      ex.wake = resolve;
      ex.res.onWritable(() => {
        // Resumed from inside this callback, the stream would write and register its next onWritable
        // before uWS is done with this one, and that registration is lost: the stream then waits forever.
        setImmediate(resolve);
        return true;
      });
    });
  }

  private finish(ex: Exchange, status: number): void {
    const ms = performance.now() - ex.start;
    this.options.observe?.(ex.route, status, ms / 1000);
    if (this.options.log.wantsRequest(status)) {
      this.options.log.request({ method: ex.method, path: ex.path, status, duration_ms: Math.round(ms * 1000) / 1000, request_id: ex.id });
    }
    if (--this.inFlight === 0 && this.idle) this.idle();
  }
}

function problemReply(problem: ProblemError): Reply {
  return {
    status: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...problem.headers },
    body: problemBody(problem),
  };
}

function remoteAddress(res: HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}

function byteLength(body: Body): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

function decodeParams(params: Params): Params {
  let decoded: Params | undefined;
  for (const name in params) {
    try {
      (decoded ??= {})[name] = decodeURIComponent(params[name]!);
    } catch {
      throw new ProblemError(400, 'invalid_path', 'the path is not valid percent-encoded UTF-8');
    }
  }
  return decoded ?? params;
}
