/**
 * What a handler returns. Handlers never touch the uWS response object: the
 * edge (server.ts) writes a Reply, which keeps the uWS rules (cork, abort,
 * write once) in one place.
 */
import type { ProblemCode } from './problem.ts';

export type Body = string | Uint8Array;

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** A whole body, or chunks streamed with backpressure (NDJSON exports). */
  body?: Body | AsyncIterable<Body> | Iterable<Body>;
  /** The code of a problem+json reply (status.ts sets it), for whoever observes the edge's answers. */
  problem?: ProblemCode;
}

const JSON_TYPE = 'application/json';

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

/** A body serialised ahead of time (the resolve hot path keeps these per compiled paywall). */
export function rawJson(status: number, body: Body, headers?: Record<string, string>): Reply {
  return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body };
}

export function empty(status: number, headers?: Record<string, string>): Reply {
  return { status, headers };
}
