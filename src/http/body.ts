import type { HttpResponse } from 'uWebSockets.js';
import { ProblemError } from './problem.ts';

export function tooLarge(limit: number): ProblemError {
  return new ProblemError(413, 'body_too_large', `the request body is larger than ${limit} bytes`);
}

/**
 * Reads a request body of at most `limit` bytes. Each chunk is copied,
 * because uWS reuses (neuters) the chunk's memory after onData returns. The
 * limit counts bytes actually received, so a lying or missing Content-Length
 * changes nothing: past the limit the promise rejects at once and the caller
 * answers 413 and closes the connection, reading no further.
 */
export function readBody(res: HttpResponse, limit: number, declaredLength: number | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (declaredLength !== undefined && declaredLength > limit) {
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    res.onData((chunk, isLast) => {
      if (done) return;
      received += chunk.byteLength;
      if (received > limit) {
        done = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(Buffer.copyBytesFrom(new Uint8Array(chunk)));
      if (isLast) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
      }
    });
  });
}
