/**
 * The management API as the dashboard uses it: JSON in and out, problems as
 * ApiError. Pages hand `call` a credential: a secret key (a Bearer token),
 * or a session's (the cookie goes by itself; changes carry the CSRF header
 * and each request the project: docs/guide/teams.md). The shapes it exchanges are
 * the server's schemas' types (`import type`, erased from the bundle).
 */
import type { FieldError } from '../../shared/errors.ts';

/** A problem+json answer (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

interface Answer<T> {
  status: number;
  body: T;
  etag: string | null;
}

/** Called when the key stops working (revoked elsewhere): the app signs out. */
let onUnauthorized: (error: ApiError) => void = () => {};
export function whenUnauthorized(listener: (error: ApiError) => void): void {
  onUnauthorized = listener;
}

const SESSION = 'session:';

/** The credential of a signed-in person acting in a project ('' for their own account's routes): what pages pass as `key`. */
export function sessionCredential(projectId: string): string {
  return SESSION + projectId;
}

/** The headers a credential sends: a key's Authorization, or a session's CSRF header and project (its cookie goes by itself). */
export function authHeaders(credential: string): Record<string, string> {
  if (!credential.startsWith(SESSION)) return credential === '' ? {} : { authorization: `Bearer ${credential}` };
  const project = credential.slice(SESSION.length);
  return { 'x-paywalld-request': '1', ...(project === '' ? {} : { 'x-paywalld-project': project }) };
}

/** A read refused with 429 is tried this many times in all. */
const MAX_READ_ATTEMPTS = 5;

export async function call<T>(
  key: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; signOutOn401?: boolean } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...authHeaders(key), ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  for (let attempt = 1; ; attempt++) {
    try {
      response = await fetch(path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        cache: 'no-store',
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiError(0, 'network', 'The server cannot be reached. Is paywalld still running?');
    }
    // The management API is rate limited per key; a page that reads many things at once (the list's
    // statistics) waits as told and reads again. Writes are never repeated behind the user's back.
    if (response.status !== 429 || method !== 'GET' || attempt === MAX_READ_ATTEMPTS) break;
    await response.arrayBuffer();
    const seconds = Number(response.headers.get('retry-after'));
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds : 1, 10) * 1000));
  }
  const text = await response.text();
  const body = text === '' ? undefined : safeJson(text);
  if (!response.ok) {
    const problem = (body ?? {}) as { code?: string; detail?: string; title?: string; errors?: FieldError[] };
    const error = new ApiError(
      response.status,
      problem.code ?? 'http_error',
      problem.detail ?? problem.title ?? `HTTP ${response.status}`,
      problem.errors ?? [],
    );
    if (response.status === 401 && options.signOutOn401 !== false) onUnauthorized(error);
    throw error;
  }
  return { status: response.status, body: body as T, etag: response.headers.get('etag') };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const enc = encodeURIComponent;
