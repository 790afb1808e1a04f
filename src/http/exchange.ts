/**
 * One request/response pair as the edge tracks it, and the request object
 * handlers see. uWS frees its request object when the callback returns, so
 * the edge copies the headers in the callback (RequestHead), and reads the
 * client's address from the response object, which uWS frees once it is
 * answered or aborted, only when something asks for it (clientAddress).
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { SignedIn } from '../shared/signed-in.ts';
import type { Principal } from './auth.ts';
import { clientIp } from './policy.ts';
import { parseQuery, type QueryPairs } from './query.ts';
import type { Request } from './request.ts';
import type { Route } from './route.ts';
import { originOf } from './session.ts';

export interface Exchange {
  res: HttpResponse;
  method: string;
  path: string;
  /** The request's headers, copied in the callback. */
  head: RequestHead;
  id: string;
  /** The client's address once read (clientAddress); undefined until something asks. */
  ip: string | undefined;
  /** Came over TLS, as the trusted proxy says (X-Forwarded-Proto); paywalld itself listens in plain HTTP. */
  tls: boolean;
  /** Behind a proxy paywalld trusts (--trust-proxy): its X-Forwarded-* headers count. */
  trustProxy: boolean;
  start: number;
  aborted: boolean;
  /** Still inside the uWS callback: writes need no cork, req is still valid. */
  sync: boolean;
  /** A request body may still be on the wire, unread: the response closes the connection, which cannot carry another request. */
  bodyUnread: boolean;
  /** Woken when the connection is aborted, so a stream waiting for onWritable can stop. */
  wake: (() => void) | undefined;
  /** Headers every response to this request carries, whatever the handler answers (CORS). */
  extraHeaders: Readonly<Record<string, string>> | undefined;
  /** The matched route, undefined for 404/405/OPTIONS answered by the edge. */
  route: Route | undefined;
  /** Whether the request log takes this exchange's line, once decided before its last write (undefined: decided when it finishes). */
  logged: boolean | undefined;
}

/**
 * The client's address: the peer, or the last X-Forwarded-For entry behind
 * a trusted proxy (--trust-proxy). Read on first use, because asking uWS for
 * the peer is a system call (getpeername) and a formatting, and most
 * requests never need it (the request log samples, rate limits may be off):
 * read on every request, it cost resolve about a fifth of its throughput per
 * CPU-second (BENCHMARKS.md). uWS answers only until the response is written
 * or aborted, so the edge reads it before either can happen when it may need
 * it afterwards (server.ts, respond.ts).
 */
export function clientAddress(ex: Exchange): string {
  ex.ip ??= clientIp(ex.head.get('x-forwarded-for'), () => remoteAddress(ex.res), ex.trustProxy);
  return ex.ip;
}

/** The peer's address as uWS writes it (IPv6 groups in full). */
function remoteAddress(res: HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const idPrefix = Math.random().toString(36).slice(2, 8);
let idCounter = 0;

/** The client's X-Request-Id when it is a sane token, else a new one. */
export function requestId(incoming: string): string {
  return REQUEST_ID.test(incoming) ? incoming : `${idPrefix}-${(++idCounter).toString(36)}`;
}

/**
 * The largest request head (request line and headers) the edge accepts:
 * Node's own default (`--max-http-header-size`), room for resolve queries
 * with long attributes. uWS takes a head that arrives in one read up to its
 * 512 KiB receive buffer, so the edge draws the line, answered with 431.
 * (uWS 20.30 closes a head over 4 KiB that arrives in pieces before it gets here.)
 */
export const MAX_HEAD_BYTES = 16 * 1024;

/**
 * A request's headers, copied from uWS in one pass (req.forEach): each read
 * through uWS's getHeader is a call into C++ that converts the name and the
 * value, and the edge reads half a dozen on every request, while the pass
 * that measures the head (for the 431) already sees every header. A request
 * carries a handful, so they are kept as a flat list and scanned; a
 * repeated header keeps its first value, as uWS's getHeader does.
 */
export class RequestHead {
  /** name, value, name, value…, names in lower case as uWS gives them. */
  private readonly pairs: string[] = [];
  /** Characters of the header lines (`name: value\r\n`). */
  private headerChars = 0;

  constructor(req: HttpRequest) {
    reading = this;
    req.forEach(collect);
    reading = undefined;
  }

  /** A header by lower-case name, '' when absent. */
  get(name: string): string {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return pairs[i + 1]!;
    return '';
  }

  /** The size of the request head as sent (`METHOD /path?query HTTP/1.1`, then `name: value` lines), near enough: characters for bytes. */
  size(method: string, path: string, rawQuery: string): number {
    return method.length + path.length + (rawQuery === '' ? 0 : rawQuery.length + 1) + 13 + this.headerChars;
  }

  /** One header as uWS's forEach hands it over (collect). */
  add(name: string, value: string): void {
    this.pairs.push(name, value);
    this.headerChars += name.length + value.length + 4;
  }
}

/** The head being read: a module variable and a named callback, so that no closure is allocated per request. */
let reading: RequestHead | undefined;
function collect(name: string, value: string): void {
  reading!.add(name, value);
}

const EMPTY = Buffer.alloc(0);

export class IncomingRequest implements Request {
  /** Set for routes whose handler runs after the callback: their headers stay readable. */
  private kept = false;
  private parsedQuery: QueryPairs | undefined;
  body: Buffer = EMPTY;
  principal: Principal | undefined;
  session: SignedIn | undefined;

  constructor(
    private readonly exchange: Exchange,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  get id(): string {
    return this.exchange.id;
  }

  get ip(): string {
    return clientAddress(this.exchange);
  }

  get tls(): boolean {
    return this.exchange.tls;
  }

  get origin(): string {
    return originOf(this.exchange.tls, this.header('host'), this.exchange.trustProxy ? this.header('x-forwarded-host') : '');
  }

  header(name: string): string {
    if (!this.kept && !this.exchange.sync) throw new Error(`header "${name}" read after the request callback returned; read headers before the first await`);
    return this.exchange.head.get(name);
  }

  /**
   * Lets a handler that runs after the uWS callback returned (after the body
   * arrived) read the headers, which the edge copied in the callback; the
   * others read theirs before their first await, as the rule says.
   */
  keepHeaders(): void {
    this.kept = true;
  }

  query(): QueryPairs {
    return (this.parsedQuery ??= parseQuery(this.rawQuery));
  }
}
