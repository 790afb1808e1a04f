import { DomainError, type ErrorCode } from '../shared/errors.ts';
import { ProblemError, problemBody } from './problem.ts';
import type { Reply } from './reply.ts';

/** The HTTP status of each domain error code: the one place the domain meets HTTP. */
const STATUS: Record<ErrorCode, number> = {
  invalid_batch: 400,
  invalid_query: 400,
  invalid_range: 400,
  malformed_json: 400,
  key_not_found: 404,
  not_found: 404,
  paywall_not_found: 404,
  product_not_found: 404,
  revision_not_found: 404,
  product_in_use: 409,
  revision_invalid: 409,
  precondition_failed: 412,
  too_many_events: 413,
  invalid_id: 422,
  validation_failed: 422,
  database_unavailable: 503,
  draining: 503,
  ingestion_failed: 503,
  ingestion_overloaded: 503,
  stats_warming_up: 503,
};

/** The problem a domain error answers with. */
export function problemOf(error: DomainError): ProblemError {
  const headers = error.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(error.retryAfterSeconds) };
  return new ProblemError(STATUS[error.code], error.code, error.message, {
    ...(error.errors ? { errors: error.errors } : {}),
    ...(headers ? { headers } : {}),
  });
}

export function problemReply(problem: ProblemError): Reply {
  return {
    status: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...problem.headers },
    body: problemBody(problem),
  };
}

/** The reply of an error a client caused (a ProblemError or DomainError); undefined for anything else, which is a bug. */
export function errorReply(error: unknown): Reply | undefined {
  if (error instanceof ProblemError) return problemReply(error);
  if (error instanceof DomainError) return problemReply(problemOf(error));
  return undefined;
}
