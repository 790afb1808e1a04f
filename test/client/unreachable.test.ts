import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { fileStorage, loadClient, seededServer } from '../helpers/client.ts';
import { example } from '../helpers/example-paywall.ts';
import { api } from '../helpers/paywalls.ts';
import { tempDir } from '../helpers/temp.ts';

/** The bundle an app ships, written by `paywalld fallback --out` from a seeded database. */
async function shippedBundle(t: TestContext) {
  return readBundle(t, (await seededServer(t)).dbPath);
}

/**
 * A real TCP server that reads requests and answers with `reply` (or never,
 * when reply is undefined), keeping every socket open until the test ends.
 */
async function tcpServer(t: TestContext, reply?: string) {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\r\n\r\n')) {
        requests.push(text);
        if (reply !== undefined) socket.write(reply);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, requests, sockets };
}

test('a server that takes the request and never answers: the fallback, once the timeout passed, while the server still holds the request', async (t) => {
  const { createClient } = await loadClient();
  const bundle = await shippedBundle(t);
  const slow = await tcpServer(t);
  const client = createClient({ baseUrl: slow.url, apiKey: 'pwk_sdk_any', fallback: bundle, timeoutMs: 200 });
  const result = await client.getPaywall('onboarding', { locale: 'de' });
  assert.equal(result.source, 'fallback');
  assert.equal(result.paywall.locale, 'de');
  assert.match(String(result.error?.message), /no answer within 200 ms/);
  // The server saw the request and has answered nothing: the client gave up on its own.
  assert.equal(slow.requests.length, 1);
  assert.match(slow.requests[0]!, /^GET \/api\/sdk\/config\?paywallId=onboarding&userId=[0-9a-f-]{36}&locale=de HTTP\/1.1\r\n/);
  assert.match(slow.requests[0]!, /\r\nauthorization: Bearer pwk_sdk_any\r\n/i);
});

test('a server that sends the headers and then stalls the body: the fallback too (the timeout covers the body)', async (t) => {
  const { createClient } = await loadClient();
  const bundle = await shippedBundle(t);
  const stalling = await tcpServer(t, 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: "x"\r\nContent-Length: 5000\r\n\r\n{"paywall_id":');
  const client = createClient({ baseUrl: stalling.url, apiKey: 'pwk_sdk_any', fallback: bundle, timeoutMs: 200 });
  const result = await client.getPaywall('onboarding');
  assert.equal(result.source, 'fallback');
  assert.equal(stalling.requests.length, 1);
});

test('nothing listening on the port: a network error, then the fallback', async (t) => {
  const { createClient } = await loadClient();
  const bundle = await shippedBundle(t);
  const client = createClient({ baseUrl: await closedPortUrl(), apiKey: 'pwk_sdk_any', fallback: bundle });
  const result = await client.getPaywall('onboarding');
  assert.equal(result.source, 'fallback');
  assert.match(String(result.error?.message), /network error/);
});

for (const status of [500, 502, 503, 429]) {
  test(`a ${status} answer: the cached answer when there is one, else the fallback`, async (t) => {
    const { createClient } = await loadClient();
    const bundle = await shippedBundle(t);
    let failing = false;
    const upstream = await seededServer(t);
    // A real HTTP server in front of paywalld that passes requests on until it is told to fail.
    const proxy = http.createServer(async (req, res) => {
      if (failing) {
        res.writeHead(status, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        res.end(JSON.stringify({ status, code: 'failing', detail: 'failing on purpose' }));
        return;
      }
      const answer = await fetch(`${upstream.url}${req.url}`, {
        headers: { authorization: req.headers.authorization ?? '', 'if-none-match': req.headers['if-none-match'] ?? '' },
      });
      res.writeHead(answer.status, { 'content-type': 'application/json', etag: answer.headers.get('etag') ?? '' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    t.after(() => proxy.close());
    const baseUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;

    const client = createClient({ baseUrl, apiKey: upstream.keys.sdk, fallback: bundle });
    const online = await client.getPaywall('onboarding', { userId: 'u-1' });
    assert.equal(online.source, 'network');
    failing = true;
    const cached = await client.getPaywall('onboarding', { userId: 'u-1' });
    assert.equal(cached.source, 'cache');
    assert.deepEqual(cached.paywall, online.paywall);
    assert.equal((cached.error as any).status, status);
    const fallback = await client.getPaywall('onboarding', { userId: 'u-2' });
    assert.equal(fallback.source, 'fallback');
  });
}

test('newer data wins: a downloaded bundle over the shipped one, a shipped bundle over an older cached answer', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const dir = tempDir(t);
  const revisionOne = await readBundle(t, server.dbPath);
  const management = api(server);
  const storage = fileStorage(path.join(dir, 'state.json'));
  const online = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, fallback: revisionOne, storage });
  assert.equal((await online.getPaywall('onboarding', { locale: 'en' })).paywall.revision, 1);

  await management.putPaywall('onboarding', { ...example(), strings: { en: { title: 'Revision two' } } });
  await management.publish('onboarding');
  const revisionTwo = await readBundle(t, server.dbPath);
  assert.deepEqual(await online.refreshFallback(['onboarding']), { updated: true });
  assert.deepEqual(await online.refreshFallback(['onboarding']), { updated: false });
  const offlineUrl = await closedPortUrl();

  // Same storage, shipped revision 1: the downloaded revision 2 beats it, and beats the cached revision 1.
  const afterDownload = createClient({ baseUrl: offlineUrl, apiKey: server.keys.sdk, fallback: revisionOne, storage });
  const downloaded = await afterDownload.getPaywall('onboarding', { locale: 'en' });
  assert.equal(downloaded.source, 'fallback');
  assert.equal(downloaded.paywall.revision, 2);
  assert.equal((downloaded.paywall.root as any).children[0].props.text, 'Revision two');

  // A storage holding only the cached revision 1 (and the device's anonymous id, part of the cached request): kept over a shipped revision 1, given up for a shipped revision 2.
  const cacheOnly = path.join(dir, 'cache-only.json');
  fs.writeFileSync(
    cacheOnly,
    JSON.stringify(
      Object.fromEntries(
        Object.entries(JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'))).filter(
          ([key]) => key.startsWith('paywalld:paywall:') || key === 'paywalld:identity',
        ),
      ),
    ),
  );
  const sameRevision = createClient({ baseUrl: offlineUrl, apiKey: server.keys.sdk, fallback: revisionOne, storage: fileStorage(cacheOnly) });
  assert.equal((await sameRevision.getPaywall('onboarding', { locale: 'en' })).source, 'cache');
  const newerShipped = createClient({ baseUrl: offlineUrl, apiKey: server.keys.sdk, fallback: revisionTwo, storage: fileStorage(cacheOnly) });
  const shipped = await newerShipped.getPaywall('onboarding', { locale: 'en' });
  assert.equal(shipped.source, 'fallback');
  assert.equal(shipped.paywall.revision, 2);
});

async function readBundle(t: TestContext, dbPath: string) {
  const file = path.join(tempDir(t), 'bundle.json');
  const written = await runCli(['fallback', '--out', file, '--db', dbPath]);
  assert.equal(written.status, 0, written.stderr);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** The URL of a port nothing listens on. */
function closedPortUrl(): Promise<string> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(`http://127.0.0.1:${port}`));
    });
  });
}

test('a captive portal answering 200 with its own page: the fallback for paywalls, and events stay queued', async (t) => {
  const { createClient } = await loadClient();
  const bundle = await shippedBundle(t);
  const portal = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>Sign in to the hotel Wi-Fi</body></html>');
  });
  await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
  t.after(() => portal.close());
  const client = createClient({ baseUrl: `http://127.0.0.1:${(portal.address() as net.AddressInfo).port}`, apiKey: 'pwk_sdk_any', fallback: bundle });
  const result = await client.getPaywall('onboarding');
  assert.equal(result.source, 'fallback');
  assert.match(String(result.error?.message), /not a resolved paywall/);
  client.track({ type: 'screen_impression', paywall_id: 'onboarding' });
  assert.deepEqual(await client.flush(), { pending: 1 });
  assert.deepEqual(client.rejectedEvents(), []);
  assert.match(String(client.queueStatus().lastError?.message), /not paywalld's answer/);
});
