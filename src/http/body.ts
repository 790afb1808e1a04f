import type { HttpResponse } from 'uWebSockets.js';
import { type EdgeErrorCode, ProblemError } from './problem.ts';

/** What reading a body may answer: too large, or too slow. */
export const BODY_ERRORS: readonly EdgeErrorCode[] = ['body_too_large', 'body_timeout'];

function tooLarge(limit: number): ProblemError {
  return new ProblemError('body_too_large', `the request body is larger than ${limit} bytes`);
}

function tooSlow(timeoutMs: number): ProblemError {
  return new ProblemError('body_timeout', `the request body did not arrive within ${timeoutMs} ms`);
}

/**
 * Reads a request body of at most `limit` bytes. Each chunk is copied,
 * because uWS reuses (neuters) the chunk's memory after onData returns. The
 * limit counts bytes actually received, so a lying or missing Content-Length
 * changes nothing: past the limit the promise rejects at once and the caller
 * answers 413 and closes the connection, reading no further. A body still
 * incomplete after `timeoutMs` is cut off the same way (408), so a client
 * dripping bytes cannot hold a connection and its buffer forever.
 */
export function readBody(res: HttpResponse, limit: number, declaredLength: number | undefined, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (declaredLength !== undefined && declaredLength > limit) {
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(tooSlow(timeoutMs));
    }, timeoutMs);
    res.onData((chunk, isLast) => {
      if (done) return;
      received += chunk.byteLength;
      if (received > limit) {
        done = true;
        clearTimeout(timer);
        reject(tooLarge(limit));
        return;
      }
      chunks.push(Buffer.copyBytesFrom(new Uint8Array(chunk)));
      if (isLast) {
        done = true;
        clearTimeout(timer);
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
      }
    });
  });
}
