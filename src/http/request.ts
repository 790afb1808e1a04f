import type { SignedIn } from '../shared/signed-in.ts';
import type { Principal } from './auth.ts';
import type { QueryPairs } from './query.ts';

/**
 * One request as handlers see it, beside their parsed input (path
 * parameters, query and body: input.ts). Headers are read through header(): while
 * the handler runs synchronously inside the uWS callback they come straight
 * from uWS; for routes that read a body (and so run later) the edge copies
 * them first, because uWS frees the request object when its callback returns.
 */
export interface Request {
  /** As sent, upper case for well-formed clients (`GET`). */
  readonly method: string;
  /** Raw path without the query string, still percent-encoded. */
  readonly path: string;
  /** Raw query string without the `?`. */
  readonly rawQuery: string;
  readonly id: string;
  /** Whom the request acts for: set by the edge from the route's doc.auth; undefined on public routes and keyless requests. */
  readonly principal: Principal | undefined;
  /** The signed-in person, when the request came with a session cookie (routes with doc.auth `secret` or `session`). */
  readonly session: SignedIn | undefined;
  /** The client's address: the peer, or what the trusted proxy says (--trust-proxy). */
  readonly ip: string;
  /** Whether the request came over TLS: as the trusted proxy says (X-Forwarded-Proto), since paywalld itself listens in plain HTTP. */
  readonly tls: boolean;
  /** This server's origin as the client addressed it (`https://paywall.example.com`): links it hands out start with it. */
  readonly origin: string;
  /** The request body; empty unless the route asked for one. */
  readonly body: Buffer;
  /** A request header by lower-case name, '' when absent. Read headers before the first await: after it, only a route with a body still has them. */
  header(name: string): string;
  /** The query's name/value pairs, decoded as URLSearchParams decodes them (parsed on first use). */
  query(): QueryPairs;
}
