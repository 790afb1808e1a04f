import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Router } from '../../src/http/router.ts';

function router(): Router<string> {
  const r = new Router<string>();
  r.add('GET', '/api/sdk/config', 'config');
  r.add('GET', '/api/paywalls/:id', 'get paywall');
  r.add('PUT', '/api/paywalls/:id', 'put paywall');
  r.add('POST', '/api/paywalls/:id/publish', 'publish');
  return r;
}

test('literal paths match without params', () => {
  assert.deepEqual(router().match('GET', '/api/sdk/config'), { kind: 'found', route: 'config', params: {} });
});

test('named segments capture one raw segment', () => {
  assert.deepEqual(router().match('POST', '/api/paywalls/on%20boarding/publish'), {
    kind: 'found',
    route: 'publish',
    params: { id: 'on%20boarding' },
  });
});

test('empty segments, extra segments and trailing slashes do not match', () => {
  const r = router();
  for (const path of ['/api/paywalls/', '/api/paywalls/a/b', '/api/sdk/config/', '/api/paywalls//publish', '']) {
    assert.equal(r.match('GET', path).kind, 'not_found', path);
  }
});

test('a known path with another method lists the allowed methods', () => {
  assert.deepEqual(router().match('DELETE', '/api/paywalls/x'), {
    kind: 'method_not_allowed',
    allow: ['GET', 'HEAD', 'OPTIONS', 'PUT'],
    routes: ['get paywall', 'put paywall'],
  });
  assert.deepEqual(router().match('GET', '/api/paywalls/x/publish'), {
    kind: 'method_not_allowed',
    allow: ['OPTIONS', 'POST'],
    routes: ['publish'],
  });
});

test('HEAD falls back to the GET route', () => {
  const match = router().match('HEAD', '/api/paywalls/x');
  assert.equal(match.kind === 'found' && match.route, 'get paywall');
});

test('methods are case-sensitive tokens', () => {
  assert.equal(router().match('get', '/api/sdk/config').kind, 'method_not_allowed');
});

test('duplicate routes are refused at registration', () => {
  const r = router();
  assert.throws(() => r.add('GET', '/api/paywalls/:id', 'again'), /duplicate route/);
  assert.throws(() => r.add('GET', 'no-slash', 'x'), /must start with/);
});

test('routes() lists every method and pattern', () => {
  assert.deepEqual(
    router()
      .routes()
      .map((r) => `${r.method} ${r.pattern}`)
      .sort(),
    ['GET /api/paywalls/:id', 'GET /api/sdk/config', 'POST /api/paywalls/:id/publish', 'PUT /api/paywalls/:id'],
  );
});
