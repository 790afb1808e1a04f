/**
 * Outgoing webhooks from the receiving end (test/webhooks/, test/scale-out/,
 * the dashboard's tests): a real HTTP receiver on a free port of 127.0.0.1
 * that records every delivery and answers as the test says, a signature
 * check written from the Standard Webhooks specification alone (it shares
 * no code with the server), and the management calls.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { bearer } from './server.ts';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  /** The body exactly as it arrived. */
  raw: string;
  event: { type: string; timestamp: string; data: Record<string, any> };
  contentType: string | undefined;
}

/** What the receiver answers: a status, or `hang` (no answer until the receiver closes). */
type Answer = number | 'hang';

export interface Receiver {
  url: string;
  /** Every request, in arrival order (retries included). */
  received: Received[];
  /** Decides each answer; `n` counts the requests of that webhook-id so far, from 1. */
  answer: (delivery: Received, n: number) => Answer;
}

export async function startReceiver(t: Pick<TestContext, 'after'>, answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = { url: '', received: [], answer };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const delivery: Received = {
        id: String(request.headers['webhook-id']),
        timestamp: String(request.headers['webhook-timestamp']),
        signature: String(request.headers['webhook-signature']),
        raw,
        event: JSON.parse(raw),
        contentType: request.headers['content-type'],
      };
      receiver.received.push(delivery);
      const status = receiver.answer(delivery, receiver.received.filter((r) => r.id === delivery.id).length);
      if (status === 'hang') hanging.add(response);
      else response.writeHead(status, { 'content-type': 'text/plain' }).end(`answered ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t.after(async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return receiver;
}

/**
 * The receiver's check, from the specification: the HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded
 * part of the secret after `whsec_`, compared in constant time with each
 * `v1,` signature of the header, and the timestamp within 5 minutes.
 */
export function verified(secret: string, delivery: Received): boolean {
  const key = Buffer.from(secret.split('_')[1]!, 'base64');
  const expected = createHmac('sha256', key).update(`${delivery.id}.${delivery.timestamp}.${delivery.raw}`).digest();
  const fresh = Math.abs(Date.now() / 1000 - Number(delivery.timestamp)) < 300;
  return (
    fresh &&
    delivery.signature.split(' ').some((part) => {
      const [version, value] = part.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    })
  );
}

/** PUT /api/webhooks/{id} with a secret key; the answer's status and body. */
export async function putWebhook(server: { url: string; keys: { secret: string } }, id: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/webhooks/${id}`, {
    method: 'PUT',
    headers: { ...bearer(server.keys.secret), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A webhook's deliveries as the API lists them, newest first. */
export async function deliveriesOf(server: { url: string; keys: { secret: string } }, id: string): Promise<any[]> {
  const response = await fetch(`${server.url}/api/webhooks/${id}/deliveries?limit=100`, { headers: bearer(server.keys.secret) });
  return (await response.json()).deliveries;
}

export const ALL_EVENTS = [
  'paywall.published',
  'paywall.rolled_back',
  'purchase.recorded',
  'refund.recorded',
  'experiment.decision_changed',
  'key.created',
  'key.revoked',
];
