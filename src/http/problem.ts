/**
 * The edge's error type, and problem+json. Code in src/http/ that refuses a
 * request (auth, limits, bodies, paths) throws a ProblemError with one of the
 * edge's own codes; the domain throws DomainError (src/shared/errors.ts),
 * whose status status.ts gives. Only the edge (server.ts) turns either into
 * an RFC 9457 application/problem+json response.
 */
import type { ErrorCode, FieldError } from '../shared/errors.ts';

/**
 * The codes the edge answers with itself, and their statuses (the domain's
 * codes are ErrorCode, mapped in status.ts). A ProblemError takes its status
 * from here, so the OpenAPI document, which reads this table, names every
 * status the edge can give.
 */
export const EDGE_STATUS = {
  invalid_path: 400,
  malformed_json: 400,
  project_required: 400,
  missing_api_key: 401,
  invalid_authorization: 401,
  invalid_api_key: 401,
  invalid_session: 401,
  insufficient_scope: 403,
  forbidden: 403,
  csrf_rejected: 403,
  not_found: 404,
  method_not_allowed: 405,
  body_timeout: 408,
  body_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
} as const satisfies Record<string, number>;

export type EdgeErrorCode = keyof typeof EDGE_STATUS;

/** Every code a problem response can carry. */
export type ProblemCode = EdgeErrorCode | ErrorCode;

/** What a problem response says; a ProblemError, or a DomainError once status.ts gave it its status. */
export interface Problem {
  readonly status: number;
  /** Stable machine-readable code, documented in docs/reference/errors.md. */
  readonly code: ProblemCode;
  readonly detail: string;
  readonly errors?: FieldError[] | undefined;
  /** Extra response headers, e.g. Allow for 405 or Retry-After for 429/503. */
  readonly headers?: Record<string, string> | undefined;
}

export class ProblemError extends Error implements Problem {
  readonly status: number;
  readonly code: EdgeErrorCode;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: EdgeErrorCode, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'ProblemError';
    this.status = EDGE_STATUS[code];
    this.code = code;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function statusTitle(status: number): string {
  return TITLES[status] ?? 'Error';
}

/** The problem+json body of an error; `type` is a URN naming the code (listed in docs/reference/errors.md). */
export function problemBody(problem: Problem): string {
  return JSON.stringify({
    type: `urn:paywalld:problem:${problem.code}`,
    title: statusTitle(problem.status),
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    ...(problem.errors ? { errors: problem.errors } : {}),
  });
}
