/**
 * GET /api/events streams: a large export leaves the server's memory flat
 * and the server answering meanwhile. 20,000 events (about 14 MB) in
 * `npm test`; 200,000 (about 140 MB, well over the 64 MiB the memory may
 * grow by, so that buffering the export would fail) under `npm run
 * test:scale` (helpers/scale.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JSON_TYPE, sendEvents } from '../helpers/events.ts';
import { scaled } from '../helpers/scale.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const TOTAL = scaled(20_000, 200_000);

test(`${TOTAL.toLocaleString('en')} events stream out with flat memory while the server keeps answering`, async (t) => {
  const { url, keys } = await startTestServer(t);
  const total = TOTAL;
  const batch = 1000;
  // Each line is about 700 bytes: buffered whole, 200,000 would take well over 130 MiB.
  const properties = { note: 'x'.repeat(480) };
  const ts = Date.now() - 3_600_000;
  const headers = { ...JSON_TYPE, ...bearer(keys.sdk) };
  const send = async (first: number) => {
    const events = Array.from({ length: batch }, (_, i) => ({
      type: 'screen_impression',
      paywall_id: 'big',
      ts: ts + first + i,
      id: `big-${first + i}`,
      user_id: `user-${(first + i) % 5000}`,
      properties,
    }));
    const response = await sendEvents(url, { events }, headers);
    assert.equal(response.status, 200, await response.text());
  };
  for (let first = 0; first < total; first += batch * 4) {
    await Promise.all([0, 1, 2, 3].map((k) => send(first + k * batch)).filter((_, k) => first + k * batch < total));
  }

  const before = process.memoryUsage().rss;
  let peak = before;
  const response = await fetch(`${url}/api/events?paywallId=big`, { headers: bearer(keys.secret) });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let lines = 0;
  let bytes = 0;
  let last = '';
  let chunks = 0;
  let answered = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const text = decoder.decode(value, { stream: true });
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
    last = (last + text).slice(-2000);
    if (++chunks % 64 === 0) {
      peak = Math.max(peak, process.memoryUsage().rss);
      // The server answers other requests while it streams.
      if (chunks % 128 === 0) {
        assert.equal((await fetch(`${url}/healthz`)).status, 200);
        answered++;
      }
    }
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  assert.equal(lines, total);
  // Each line is about 700 bytes.
  assert.ok(bytes > total * 680, `${bytes} bytes exported`);
  assert.ok(answered > 0, `${chunks} chunks, and no request answered while they streamed`);
  assert.equal(JSON.parse(last.trimEnd().split('\n').at(-1)!).id, `big-${total - 1}`);
  const growth = peak - before;
  // Client and server share this process; generous, and at scale still far below the size of the export.
  assert.ok(growth < 64 * 1024 * 1024, `rss grew by ${Math.round(growth / 1024 / 1024)} MB while exporting ${Math.round(bytes / 1024 / 1024)} MB`);
});
