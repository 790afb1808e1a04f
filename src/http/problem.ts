/**
 * The one error type of paywalld. Anything in the code base that wants to
 * answer a request with an error throws (or returns) a ProblemError; only the
 * HTTP edge (src/http/server.ts) turns it into an RFC 9457
 * application/problem+json response.
 */
import type { FieldError } from '../shared/errors.ts';

export class ProblemError extends Error {
  readonly status: number;
  /** Stable machine-readable code, documented in docs/errors.md. */
  readonly code: string;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers, e.g. Allow for 405 or Retry-After for 429/503. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    detail: string,
    options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = status;
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

/** The problem+json body of an error; `type` is a URN naming the code (listed in docs/errors.md). */
export function problemBody(problem: ProblemError): string {
  return JSON.stringify({
    type: `urn:paywalld:problem:${problem.code}`,
    title: statusTitle(problem.status),
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    ...(problem.errors ? { errors: problem.errors } : {}),
  });
}
