/**
 * paywalld's calls to Google (google-endpoints.ts). Each has a time limit, follows no redirect (an
 * access token must not travel to another address) and reads at most MAX_ANSWER_BYTES. A failure is
 * store_unavailable (503), so that Pub/Sub delivers the notification again; its message names what
 * failed and never a token, a key or the address (which holds a purchase token).
 */
import { DomainError } from '../../shared/errors.ts';

/** Google's answers are a few kilobytes (its keys about 2, a subscription purchase about 1). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Pub/Sub's first redelivery comes about 10 s later whatever this says; a client that reads it waits as long. */
const RETRY_AFTER_SECONDS = 10;

export function unavailable(why: string): DomainError {
  return new DomainError('store_unavailable', `Google did not answer as paywalld needs (${why}); nothing is stored: deliver it again`, {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

interface GoogleAnswer {
  status: number;
  headers: Headers;
  text: string;
}

async function bodyOf(response: Response, what: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw unavailable(`${what} answered more than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One request to Google within `timeoutMs` (the answer's body included); any status is returned, a network failure or timeout thrown. */
export async function callGoogle(url: string, init: RequestInit, timeoutMs: number, what: string): Promise<GoogleAnswer> {
  try {
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, headers: response.headers, text: await bodyOf(response, what) };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw unavailable(`${what}: ${timedOut ? `no answer within ${timeoutMs} ms` : 'the connection failed'}`);
  }
}

/** The JSON object of a 2xx answer; store_unavailable for another status or anything but an object. */
export function okObject(answer: GoogleAnswer, what: string): Record<string, unknown> {
  if (answer.status < 200 || answer.status > 299) throw unavailable(`${what} answered ${answer.status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    throw unavailable(`${what} answered something that is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw unavailable(`${what} answered something that is not a JSON object`);
  return parsed as Record<string, unknown>;
}
