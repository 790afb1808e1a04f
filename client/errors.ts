/** A failure the app should know about: the server refused the request, or nothing could be shown. */
export class PaywalldError extends Error {
  /** The HTTP status, or 0 when no answer came (network error, timeout) and there was nothing to fall back to. */
  readonly status: number;
  /** The problem's `code` (docs/reference/errors.md), or `unavailable` when no answer came and there was nothing to fall back to. */
  readonly code: string;

  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PaywalldError';
    this.status = status;
    this.code = code;
  }
}

/** The request got no HTTP answer: a network error, or no answer within the timeout. */
export class TransportError extends Error {
  readonly timedOut: boolean;

  constructor(message: string, timedOut: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
    this.timedOut = timedOut;
  }
}

/** The error of a non-2xx answer, with the problem's code when the body is problem+json. */
export async function errorOf(response: Response): Promise<PaywalldError> {
  let code = `http_${response.status}`;
  let detail = `the server answered ${response.status}`;
  try {
    const problem = (await response.json()) as { code?: unknown; detail?: unknown };
    if (typeof problem.code === 'string') code = problem.code;
    if (typeof problem.detail === 'string') detail = problem.detail;
  } catch {
    // Not problem+json (a proxy's error page): the status says enough.
  }
  return new PaywalldError(response.status, code, detail);
}
