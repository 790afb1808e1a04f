import assert from 'node:assert/strict';

/** Asserts that `response` is a problem+json of this status and code, and returns its body. */
export async function problem(response: Response, status: number, code: string): Promise<Record<string, any>> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  const body = JSON.parse(text) as Record<string, any>;
  assert.equal(body.code, code, text);
  return body;
}
