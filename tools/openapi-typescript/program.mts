/**
 * A small client written against the types openapi-typescript generates
 * from paywalld's served OpenAPI document (./api.ts, generated next to a
 * copy of this file by test/openapi/typescript-client.test.ts). It resolves a
 * live paywall, sends events and reads a 422's `errors`, then prints what it
 * saw. Type-checked with `tsc --strict` before it runs against a real server.
 */
import type { operations } from './api.ts';

type ResolveQuery = operations['resolvePaywall']['parameters']['query'];
type Resolved = operations['resolvePaywall']['responses'][200]['content']['application/json'];
type NotLive = operations['resolvePaywall']['responses'][404]['content']['application/problem+json'];
type EventBatch = operations['sendEvents']['requestBody']['content']['application/json'];
type IngestResult = operations['sendEvents']['responses'][200]['content']['application/json'];
type PaywallDocument = operations['putPaywall']['requestBody']['content']['application/json'];
type Invalid = operations['putPaywall']['responses'][422]['content']['application/problem+json'];

// Each error response names the codes it may carry, and nothing else.
const notLive: NotLive['code'] = 'paywall_not_found';
// @ts-expect-error a 422 never carries rate_limited (a 429's code)
const neverInvalid: Invalid['code'] = 'rate_limited';

const url = process.env.PAYWALLD_URL!;
const sdkKey = process.env.PAYWALLD_SDK_KEY!;
const secretKey = process.env.PAYWALLD_SECRET_KEY!;
const paywallId = process.env.PAYWALLD_PAYWALL_ID!;

async function resolve(query: ResolveQuery): Promise<Resolved> {
  const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const response = await fetch(`${url}/api/sdk/config?${params}`, { headers: { authorization: `Bearer ${sdkKey}` } });
  if (response.status !== 200) throw new Error(`resolve answered ${response.status}`);
  return (await response.json()) as Resolved;
}

async function sendEvents(batch: EventBatch): Promise<IngestResult> {
  const response = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sdkKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(batch),
  });
  if (response.status !== 200) throw new Error(`events answered ${response.status}`);
  return (await response.json()) as IngestResult;
}

async function putPaywall(id: string, document: PaywallDocument): Promise<Invalid | undefined> {
  const response = await fetch(`${url}/api/paywalls/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  if (response.status === 422) return (await response.json()) as Invalid;
  if (response.status !== 200 && response.status !== 201) throw new Error(`put answered ${response.status}`);
  return undefined;
}

const resolved = await resolve({ paywallId, userId: 'user-1', platform: 'ios', locale: 'de' });
const result = await sendEvents({
  events: [
    { type: 'paywall_view', paywall_id: resolved.paywall_id, ts: Date.now(), id: 'view-1', user_id: 'user-1', variant_id: resolved.variant.id },
    { type: 'Not A Type', paywall_id: resolved.paywall_id, ts: Date.now() },
  ],
});
// A document without variants: the server's 422 says where.
const invalid = await putPaywall('broken', { ...(await currentDocument()), variants: [] });
if (!invalid) throw new Error('the broken document was accepted');
const code: 'invalid_id' | 'validation_failed' = invalid.code;
const pointers: string[] = (invalid.errors ?? []).map((error) => error.path);

console.log(
  JSON.stringify({
    variant: resolved.variant.id,
    revision: resolved.revision,
    accepted: result.accepted,
    rejected: result.rejected.map((rejection) => rejection.code),
    invalid: { status: invalid.status, code, pointers },
    notLive,
    neverInvalid,
  }),
);

async function currentDocument(): Promise<PaywallDocument> {
  const response = await fetch(`${url}/api/paywalls/${paywallId}`, { headers: { authorization: `Bearer ${secretKey}` } });
  const body = (await response.json()) as operations['getPaywall']['responses'][200]['content']['application/json'];
  return body.document as PaywallDocument;
}
