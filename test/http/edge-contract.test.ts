/**
 * What the edge enforces for every route of the real server, found by
 * enumerating the router: so a route added tomorrow is covered without a
 * new test.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { Route } from '../../src/http/route.ts';
import { asPerson, firstOwner } from '../helpers/accounts.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

interface Listed {
  method: string;
  pattern: string;
  route: Route;
}

/** A concrete path of a pattern: every parameter becomes `x` (or 1 for revision numbers, the project for `:project`). */
function pathOf(pattern: string, project = 'x'): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => (name === 'revision' ? '1' : name === 'project' ? project : 'x'));
}

/** Routes that take an API key (sessions' own routes take none). */
function keyed(routes: Listed[]): Listed[] {
  return routes.filter(({ route }) => route.doc.auth === 'sdk' || route.doc.auth === 'secret');
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

/** Sends the request head and the first part of a large body, and waits until the server answers and closes (or the deadline passes). */
function answerWhileBodyPending(port: number, head: string): Promise<{ answer: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let closedByServer = false;
    const deadline = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('end', () => (closedByServer = true));
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve({ answer, closedByServer });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? (closedByServer = true) : reject(error)));
    socket.write(head);
    socket.write(`{"x":"${'a'.repeat(1024)}`);
  });
}

test('every route that needs a key answers 401 without one (or with an unknown one) and 403 with the wrong scope', async (t) => {
  const { url, server, keys, projectId } = await startTestServer(t);
  const routes = keyed(server.router.routes());
  assert.ok(routes.length >= 15, `only ${routes.length} keyed routes found`);
  for (const { method, pattern, route } of routes) {
    const target = `${url}${pathOf(pattern, projectId)}`;
    const label = `${method} ${pattern}`;
    if (!route.doc.keyOptional) {
      const missing = await fetch(target, { method });
      assert.equal(missing.status, 401, label);
      assert.equal(await codeOf(missing), 'missing_api_key', label);
    }
    const unknown = await fetch(target, { method, headers: bearer(`pwk_secret_${'A'.repeat(32)}`) });
    assert.equal(unknown.status, 401, label);
    assert.equal(await codeOf(unknown), 'invalid_api_key', label);
    const sdk = await fetch(target, { method, headers: bearer(keys.sdk) });
    if (route.doc.auth === 'secret') {
      assert.equal(sdk.status, 403, label);
      assert.equal(await codeOf(sdk), 'insufficient_scope', label);
    } else {
      assert.ok(sdk.status !== 401 && sdk.status !== 403, `${label}: ${sdk.status}`);
      await sdk.arrayBuffer();
    }
    // A secret key may do everything an sdk key may.
    const secret = await fetch(target, { method, headers: bearer(keys.secret) });
    assert.ok(secret.status !== 401 && secret.status !== 403, `${label}: ${secret.status}`);
    await secret.arrayBuffer();
  }
  // A person's own routes take a session, never a key.
  const sessionRoutes = server.router.routes().filter(({ route }) => route.doc.auth === 'session');
  assert.ok(sessionRoutes.length >= 3);
  for (const { method, pattern } of sessionRoutes) {
    for (const headers of [{}, bearer(keys.secret)]) {
      const response = await fetch(`${url}${pattern}`, { method, headers });
      assert.equal(response.status, 401, `${method} ${pattern}`);
      assert.equal(await codeOf(response), 'invalid_session', `${method} ${pattern}`);
    }
  }
});

test('a route that reads a body refuses a bad key from the headers alone, before the body, and closes the connection', async (t) => {
  const { server, keys } = await startTestServer(t);
  const port = server.port;
  const bodyRoutes = keyed(server.router.routes()).filter(({ route }) => route.maxBody !== undefined);
  assert.ok(bodyRoutes.length >= 4);
  for (const { method, pattern, route } of bodyRoutes) {
    const authorizations = [`Bearer pwk_sdk_${'B'.repeat(32)}`, ...(route.doc.auth === 'secret' ? [`Bearer ${keys.sdk}`] : [])];
    for (const authorization of authorizations) {
      // 3 MB announced, 1 KB sent: the answer cannot wait for the rest.
      const head = `${method} ${pathOf(pattern)} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: ${3 * 1024 * 1024}\r\n\r\n`;
      const { answer, closedByServer } = await answerWhileBodyPending(port, head);
      assert.match(answer, /^HTTP\/1\.1 40[13] /, `${method} ${pattern}`);
      assert.ok(closedByServer, `${method} ${pattern}: the connection stayed open with the body unread`);
    }
  }
});

/**
 * Sends `first`, then `second` on the same connection once the first answer's
 * head arrived (uWS drops an asynchronous answer when a pipelined request
 * follows it), and resolves with everything received until the server closes.
 */
function oneAfterAnother(port: number, first: string, second: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = false;
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (!sent && answer.includes('\r\n\r\n')) {
        sent = true;
        socket.write(second);
      }
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(first);
  });
}

test('HEAD answers headers only on every GET route, so the next response on the connection is framed right', async (t) => {
  const { url, server, keys } = await startTestServer(t);
  // One stored event, so the NDJSON export has a body HEAD must not send.
  const sent = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { ...bearer(keys.sdk), 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'p', ts: Date.now() }] }),
  });
  assert.equal(sent.status, 200);
  const gets = server.router.routes().filter(({ method }) => method === 'GET');
  assert.ok(gets.some(({ pattern }) => pattern === '/api/events'));
  for (const { pattern } of gets) {
    const head = `HEAD ${pathOf(pattern)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.secret}\r\n\r\n`;
    const next = `GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const answer = await oneAfterAnother(server.port, head, next);
    const responses = answer.split(/(?=HTTP\/1\.1 \d{3} )/);
    assert.equal(responses.length, 2, `HEAD ${pattern}: ${answer.slice(0, 300)}`);
    const headEnd = responses[0]!.indexOf('\r\n\r\n') + 4;
    assert.equal(responses[0]!.length, headEnd, `HEAD ${pattern} sent a body: ${responses[0]!.slice(headEnd, headEnd + 100)}`);
    assert.match(responses[1]!, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\n\{"status":"ready"\}$/);
  }
});

test('a malformed JSON body is refused without echoing any of it', async (t) => {
  const testServer = await startTestServer(t);
  const { server, keys, projectId } = testServer;
  const owner = await firstOwner(testServer);
  // Short, because V8's message quotes only a few characters around the error.
  const marker = 'QzX';
  const bodyRoutes = server.router.routes().filter(({ route }) => route.maxBody !== undefined);
  for (const { method, pattern, route } of bodyRoutes) {
    // A store's notification is parsed only once its origin is known: unsigned, it is refused before any parse.
    const parsedLater = route.body !== undefined && 'unparsed' in route.body;
    for (const broken of [`{"a": ${marker}}`, `${marker}`, `{"${marker}": 1,}`, `["${marker}"`, `{"a": "${marker}" "b"}`]) {
      const response = await fetch(`http://127.0.0.1:${server.port}${pathOf(pattern, projectId)}`, {
        method,
        headers: { ...(route.doc.auth === 'session' ? asPerson(owner) : bearer(keys.secret)), 'content-type': 'application/json' },
        body: broken,
      });
      const text = await response.text();
      if (parsedLater) assert.equal(response.status, 404, `${method} ${pattern} ${broken}: ${text}`);
      else {
        assert.equal(response.status, 400, `${method} ${pattern} ${broken}: ${text}`);
        assert.equal(JSON.parse(text).code, 'malformed_json');
      }
      assert.ok(!text.includes(marker), `${method} ${pattern} echoed the body: ${text}`);
    }
  }
});
