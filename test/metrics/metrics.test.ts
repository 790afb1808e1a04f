import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { MetricsRegistry } from '../../src/metrics/registry.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('/metrics needs a secret key and counts requests per route, method and status', async (t) => {
  const { url, keys, backend } = await startTestServer(t);
  assert.equal((await fetch(`${url}/metrics`)).status, 401);
  assert.equal((await fetch(`${url}/metrics`, { headers: bearer(keys.sdk) })).status, 403);
  for (let i = 0; i < 3; i++) await fetch(`${url}/healthz`);
  await fetch(`${url}/no/such/path`);
  const response = await fetch(`${url}/metrics`, { headers: bearer(keys.secret) });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0.0.4/);
  const text = await response.text();
  assert.match(text, /^paywalld_http_requests_total\{route="\/healthz",method="GET",status="200"\} 3$/m);
  assert.match(text, /^paywalld_http_requests_total\{route="unmatched",method="",status="404"\} 1$/m);
  assert.match(text, /^paywalld_http_request_duration_seconds_count\{route="\/healthz",method="GET"\} 3$/m);
  if (backend === 'sqlite') assert.match(text, /^paywalld_sqlite_file_bytes\{file="db"\} [1-9]\d*$/m);
  assert.match(text, /^process_resident_memory_bytes [1-9]\d*$/m);
  assert.match(text, /^# TYPE process_cpu_seconds_total counter$/m);
  assert.match(text, /^paywalld_paywalls_compiled 0$/m);
});

test('--metrics-port serves /metrics without a key on localhost', async (t) => {
  const metricsPort = await freePort();
  const { url } = await startTestServer(t, { metricsPort });
  await fetch(`${url}/healthz`);
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  assert.equal(response.status, 200);
  assert.match(await response.text(), /paywalld_http_requests_total\{route="\/healthz",method="GET",status="200"\} 1/);
  assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status, 404);
});

test('the registry writes counters, histograms and gauges in the Prometheus text format', () => {
  const registry = new MetricsRegistry();
  registry.counter('jobs_total', 'Jobs.').labels({ kind: 'a"b\\c\nd' }).inc(2);
  const histogram = registry.histogram('size', 'Sizes.', [1, 10]).labels();
  for (const value of [0.5, 1, 5, 50]) histogram.observe(value);
  registry.gauge('depth', 'Depth.', () => 7);
  assert.equal(
    registry.expose(),
    [
      '# HELP jobs_total Jobs.',
      '# TYPE jobs_total counter',
      'jobs_total{kind="a\\"b\\\\c\\nd"} 2',
      '# HELP size Sizes.',
      '# TYPE size histogram',
      'size_bucket{le="1"} 2',
      'size_bucket{le="10"} 3',
      'size_bucket{le="+Inf"} 4',
      'size_sum 56.5',
      'size_count 4',
      '# HELP depth Depth.',
      '# TYPE depth gauge',
      'depth 7',
      '',
    ].join('\n'),
  );
  assert.throws(() => registry.counter('jobs_total', 'again'), /registered twice/);
  assert.throws(() => registry.counter('bad name', 'x'), /invalid metric name/);
});
