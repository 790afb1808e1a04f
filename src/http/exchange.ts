/**
 * One request/response pair as the edge tracks it, and the request object
 * handlers see. uWS frees its request object when the callback returns, so
 * headers are read from it only while `sync` holds, or from the copy made
 * for routes that read a body.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { SignedIn } from '../shared/signed-in.ts';
import type { Principal } from './auth.ts';
import { parseQuery, type QueryPairs } from './query.ts';
import type { Request } from './request.ts';
import type { Route } from './route.ts';
import { originOf } from './session.ts';

export interface Exchange {
  res: HttpResponse;
  method: string;
  path: string;
  id: string;
  /** The client's address for the request log: the peer, or the last X-Forwarded-For entry behind a trusted proxy (--trust-proxy). */
  ip: string;
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

/** headSize's running total: a module variable and a named callback, so that no closure is allocated per request. */
let counted = 0;
function countHeader(name: string, value: string): void {
  counted += name.length + value.length + 4;
}

/** The size of the request head as sent (`METHOD /path?query HTTP/1.1`, then `name: value` lines), near enough: characters for bytes. */
export function headSize(req: HttpRequest, method: string, path: string, rawQuery: string): number {
  counted = method.length + path.length + (rawQuery === '' ? 0 : rawQuery.length + 1) + 13;
  req.forEach(countHeader);
  return counted;
}

const EMPTY = Buffer.alloc(0);

export class IncomingRequest implements Request {
  private headers: Map<string, string> | undefined;
  private parsedQuery: QueryPairs | undefined;
  body: Buffer = EMPTY;
  principal: Principal | undefined;
  session: SignedIn | undefined;

  constructor(
    private readonly req: HttpRequest,
    private readonly exchange: Exchange,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  get id(): string {
    return this.exchange.id;
  }

  get ip(): string {
    return this.exchange.ip;
  }

  get tls(): boolean {
    return this.exchange.tls;
  }

  get origin(): string {
    return originOf(this.exchange.tls, this.header('host'), this.exchange.trustProxy ? this.header('x-forwarded-host') : '');
  }

  header(name: string): string {
    if (this.headers) return this.headers.get(name) ?? '';
    if (!this.exchange.sync) throw new Error(`header "${name}" read after the request callback returned; read headers before the first await`);
    return this.req.getHeader(name);
  }

  /**
   * Copies every header, for handlers that run after the uWS callback
   * returned (after the body arrived). A repeated
   * header keeps its first value, as uWS's getHeader does, so a handler
   * reads what the edge read.
   */
  keepHeaders(): void {
    if (this.headers) return;
    const headers = new Map<string, string>();
    this.req.forEach((key, value) => {
      if (!headers.has(key)) headers.set(key, value);
    });
    this.headers = headers;
  }

  query(): QueryPairs {
    return (this.parsedQuery ??= parseQuery(this.rawQuery));
  }
}
