/**
 * One attempt at a delivery: the host resolved and checked (addresses.ts)
 * and the connection made to the address checked, a POST of the body with
 * the Standard Webhooks headers, 10 seconds for the whole exchange, no
 * redirect followed (a 3xx is a failure, as the specification says), and
 * at most 64 KiB of the answer read.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { type Resolved, resolveChecked } from './addresses.ts';
import { signature } from './signature.ts';
import type { ClaimedDelivery } from './store.ts';

const TIMEOUT_MS = 10_000;
/** The most of an answer read; the rest is not waited for. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** The start of the answer kept with the delivery, for people to read. */
const KEPT_RESPONSE_BYTES = 1024;

interface AttemptResult {
  /** The answer's status; null when none came (refused address, network error, timeout before the headers). */
  status: number | null;
  body: string | null;
  /** Why the attempt failed whatever the status: no answer, or its body cut off by the timeout or the network. */
  error: string | null;
}

/** A lookup that answers the addresses already checked, whatever the name: the connection goes where the check looked. */
function pinned(resolved: Resolved[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, resolved);
    else callback(null, resolved[0]!.address, resolved[0]!.family);
  };
}

export async function attempt(delivery: ClaimedDelivery, allowPrivate: boolean, signal: AbortSignal): Promise<AttemptResult> {
  const url = new URL(delivery.url);
  let resolved: Resolved[];
  try {
    resolved = await resolveChecked(url.hostname, allowPrivate);
  } catch (error) {
    return { status: null, body: null, error: (error as Error).message };
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(delivery.body)),
    'user-agent': 'paywalld-webhooks',
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(delivery.secret, delivery.id, timestamp, delivery.body),
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      const body = status === null ? null : Buffer.concat(chunks).subarray(0, KEPT_RESPONSE_BYTES).toString('utf8');
      resolve({ status, body, error });
    };
    const request = client.request(url, { method: 'POST', headers, lookup: pinned(resolved), agent: false, signal }, (response) => {
      status = response.statusCode ?? null;
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) finish(null);
      });
      response.on('end', () => finish(null));
      response.on('error', (error) => finish(error.message));
    });
    // An answer whose body is still coming after 10 s (and is shorter than what is read) fails as one that never came.
    const timer = setTimeout(() => finish(`no complete answer within ${TIMEOUT_MS / 1000} s`), TIMEOUT_MS);
    request.on('error', (error: NodeJS.ErrnoException) => finish(signal.aborted ? 'stopped' : error.message));
    request.end(delivery.body);
  });
}
