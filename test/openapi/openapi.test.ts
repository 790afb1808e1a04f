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

  // Pages for a browser (the dashboard) are not part of the API.
  const routes = server.router.routes().filter(({ route }) => !route.doc.browser);
  assert.ok(routes.length > 10);
  for (const { method, pattern } of routes) {
    const path = pattern.replace(/:([A-Za-z]+)/g, '{$1}');
    const operation = document.paths[path]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${pattern} is missing`);
    assert.equal(typeof operation.summary, 'string');
    for (const name of [...pattern.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1])) {
      assert.ok(
        operation.parameters.some((p: Json) => p.in === 'path' && p.name === name),
        `${method} ${pattern} lacks {${name}}`,
      );
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
    const target = ref
      .slice(2)
      .split('/')
      .reduce((node: Json | undefined, key) => node?.[key], document);
    assert.ok(target, `${ref} at ${at} does not resolve`);
  }
  const put = document.paths['/api/paywalls/{id}'].put;
  const body = put.requestBody.content['application/json'].schema;
  assert.deepEqual(body.properties.root, { $ref: '#/components/schemas/ComponentNode' });
  assert.ok(document.components.schemas.ComponentNode.oneOf.length >= 9);
  assert.deepEqual(put.security, [{ secretKey: [] }, { session: [] }]);

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

test('errors are one Problem schema; each operation lists its error statuses, each with the codes it may carry', async (t) => {
  const { url } = await startTestServer(t);
  const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as Json;
  const problem = document.components.schemas.Problem;
  assert.deepEqual(problem.required, ['type', 'title', 'status', 'detail', 'code']);
  assert.equal(problem.properties.errors.items.properties.path.type, 'string');
  const allCodes = new Set<string>(problem.properties.code.enum);

  const operations = Object.values(document.paths).flatMap((item) => Object.values(item as Json)) as Json[];
  for (const operation of operations) {
    assert.match(operation.operationId, /^[a-z]+[A-Z][A-Za-z]+$/, 'an operation id reads as a method name');
    const errorStatuses = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
    assert.ok(errorStatuses.includes('500'), `${operation.operationId} declares 500`);
    for (const status of errorStatuses) {
      const schema = operation.responses[status].content['application/problem+json'].schema;
      assert.deepEqual(schema.allOf[0], { $ref: '#/components/schemas/Problem' });
      const codes: string[] = schema.allOf[1].properties.code.enum;
      assert.ok(codes.length > 0);
      for (const code of codes) assert.ok(allCodes.has(code), `${code} is a Problem code`);
    }
  }
  const op = (path: string, method: string) => document.paths[path][method];
  const codes = (path: string, method: string, status: number) =>
    op(path, method).responses[status].content['application/problem+json'].schema.allOf[1].properties.code.enum;
  // Edge codes come from the route's declaration: auth, rate limit, body and JSON, path parameters.
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 401), ['invalid_api_key', 'invalid_authorization', 'invalid_session', 'missing_api_key']);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 403), ['csrf_rejected', 'forbidden', 'insufficient_scope']);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 400), ['invalid_path', 'malformed_json', 'project_required']);
  // A read needs no CSRF header; a person's own routes take no key.
  assert.deepEqual(codes('/api/paywalls/{id}', 'get', 403), ['forbidden', 'insufficient_scope']);
  assert.deepEqual(codes('/api/auth/me', 'get', 401), ['invalid_session']);
  assert.deepEqual(op('/api/auth/logout', 'post').security, [{ session: [] }]);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 413), ['body_too_large']);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 408), ['body_timeout']);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 415), ['unsupported_media_type']);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 422), ['invalid_id', 'validation_failed']);
  assert.deepEqual(codes('/api/paywalls/{id}', 'put', 429), ['rate_limited']);
  // Keyless event batches are accepted by default: no missing_api_key, but a broken key is still refused.
  assert.deepEqual(codes('/api/sdk/events', 'post', 401), ['invalid_api_key', 'invalid_authorization']);
  assert.deepEqual(codes('/api/sdk/events', 'post', 503), ['database_unavailable', 'ingestion_failed', 'ingestion_overloaded']);
  assert.deepEqual(codes('/readyz', 'get', 503), ['draining']);
  assert.equal(op('/healthz', 'get').responses[401], undefined, 'public routes answer no 401');
  assert.ok(op('/api/sdk/config', 'get').responses[429].headers['Retry-After']);

  assert.deepEqual(document.servers, [{ url: '/', description: 'the server that serves this document' }]);
  assert.deepEqual(document.info.license, { name: 'MIT', identifier: 'MIT' });
  assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['sdkKey', 'secretKey', 'session']);
  assert.equal(op('/api/sdk/config', 'get').operationId, 'resolvePaywall');
  assert.equal(op('/api/sdk/events', 'post').operationId, 'sendEvents');
});

test('with --require-key, sending events declares missing_api_key', async (t) => {
  const { url } = await startTestServer(t, { requireKey: true });
  const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as Json;
  const schema = document.paths['/api/sdk/events'].post.responses[401].content['application/problem+json'].schema;
  assert.deepEqual(schema.allOf[1].properties.code.enum, ['invalid_api_key', 'invalid_authorization', 'missing_api_key']);
});
