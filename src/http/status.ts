import { DomainError, type ErrorCode } from '../shared/errors.ts';
import { EDGE_STATUS, type Problem, type ProblemCode, ProblemError, problemBody } from './problem.ts';
import type { Reply } from './reply.ts';

/** The HTTP status of each domain error code: the one place the domain meets HTTP. */
const STATUS: Record<ErrorCode, number> = {
  invalid_batch: 400,
  invalid_purchases: 400,
  invalid_notification: 400,
  invalid_signature: 401,
  integration_not_found: 404,
  too_many_purchases: 413,
  invalid_query: 400,
  invalid_range: 400,
  key_not_found: 404,
  not_found: 404,
  paywall_not_found: 404,
  product_not_found: 404,
  revision_not_found: 404,
  phase_not_found: 404,
  audience_not_found: 404,
  template_not_found: 404,
  product_in_use: 409,
  too_many_keys: 409,
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
  secrets_unavailable: 503,
  store_unavailable: 503,
  invalid_credentials: 401,
  sign_in_throttled: 429,
  invitation_invalid: 400,
  member_not_found: 404,
  user_not_found: 404,
  already_member: 409,
  last_owner: 409,
  link_needs_secret_key: 403,
  too_many_links: 409,
  webhook_not_found: 404,
  delivery_not_found: 404,
  webhook_url_invalid: 422,
  webhook_url_refused: 422,
  too_many_webhooks: 409,
  placement_not_found: 404,
  user_required: 400,
};

/** The status a problem with this code answers with, whether the domain or the edge raises it. */
export function statusOf(code: ProblemCode): number {
  return code in EDGE_STATUS ? EDGE_STATUS[code as keyof typeof EDGE_STATUS] : STATUS[code as ErrorCode];
}

/** Every code a domain error can carry. */
export const DOMAIN_ERROR_CODES = Object.keys(STATUS) as ErrorCode[];

/** The problem a domain error answers with. */
function problemOf(error: DomainError): Problem {
  const headers = error.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(error.retryAfterSeconds) };
  return { status: STATUS[error.code], code: error.code, detail: error.message, errors: error.errors, headers };
}

export function problemReply(problem: Problem): Reply {
  return {
    status: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...problem.headers },
    body: problemBody(problem),
    problem: problem.code,
  };
}

/** The reply of an error a client caused (a ProblemError or DomainError); undefined for anything else, which is a bug. */
export function errorReply(error: unknown): Reply | undefined {
  if (error instanceof ProblemError) return problemReply(error);
  if (error instanceof DomainError) return problemReply(problemOf(error));
  return undefined;
}
