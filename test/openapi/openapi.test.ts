import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

/** Every `$ref` in the document, with the place it sits. */
function refs(node: unknown, at = ''): { ref: string; at: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => refs(item, `${at}/${i}`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' ? [{ ref: value as string, at }] : refs(value, `${at}/${key}`)));
}

test('GET /api/openapi.json documents every route the router knows, itself included', async (t) => {
  const { url, server } = await startTestServer(t);
  const response = await fetch(`${url}/api/openapi.json`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  const document = (await response.json()) as Json;
  assert.equal(document.openapi, '3.1.0');

  const routes = server.router.routes();
  assert.ok(routes.length > 10);
  for (const { method, pattern } of routes) {
    const path = pattern.replace(/:([A-Za-z]+)/g, '{$1}');
    const operation = document.paths[path]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${pattern} is missing`);
    assert.equal(typeof operation.summary, 'string');
    for (const name of [...pattern.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1])) {
      assert.ok(operation.parameters.some((p: Json) => p.in === 'path' && p.name === name), `${method} ${pattern} lacks {${name}}`);
    }
  }
  const documented = Object.values(document.paths).reduce((n: number, item) => n + Object.keys(item as Json).length, 0);
  assert.equal(documented, routes.length, 'no operation without a route');
  const ids = Object.values(document.paths).flatMap((item) => Object.values(item as Json).map((op: Json) => op.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('every $ref resolves inside the document; the paywall tree is one named recursive schema', async (t) => {
  const { url } = await startTestServer(t);
  const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as Json;
  for (const { ref, at } of refs(document)) {
    assert.match(ref, /^#\//, at);
    const target = ref.slice(2).split('/').reduce((node: Json | undefined, key) => node?.[key], document);
    assert.ok(target, `${ref} at ${at} does not resolve`);
  }
  const put = document.paths['/api/paywalls/{id}'].put;
  const body = put.requestBody.content['application/json'].schema;
  assert.deepEqual(body.properties.root, { $ref: '#/components/schemas/ComponentNode' });
  assert.ok(document.components.schemas.ComponentNode.oneOf.length >= 9);
  assert.deepEqual(put.security, [{ secretKey: [] }]);

  const resolve = document.paths['/api/sdk/config'].get;
  assert.deepEqual(resolve.security, [{ sdkKey: [] }, { secretKey: [] }]);
  const parameters = Object.fromEntries(resolve.parameters.map((p: Json) => [p.name, p]));
  assert.deepEqual(Object.keys(parameters).sort(), ['appVersion', 'country', 'explain', 'locale', 'paywallId', 'platform', 'userId']);
  assert.equal(parameters.paywallId.required, true);
  assert.deepEqual(parameters.platform.schema.enum, ['ios', 'android', 'web']);
});

test('the OpenAPI document answers 304 to its own ETag', async (t) => {
  const { url } = await startTestServer(t);
  const etag = (await fetch(`${url}/api/openapi.json`)).headers.get('etag')!;
  assert.equal((await fetch(`${url}/api/openapi.json`, { headers: { 'if-none-match': etag } })).status, 304);
});
