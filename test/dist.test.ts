import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { DIST, runCli, spawnServe } from './helpers/cli.ts';
import { tempDir } from './helpers/temp.ts';
import { until } from './helpers/until.ts';

test('the bundled dist/ runs from a temp directory with no source tree and no node_modules', async (t) => {
  const dir = tempDir(t);
  const copy = path.join(dir, 'paywalld');
  fs.cpSync(path.dirname(DIST), copy, { recursive: true });
  const script = path.join(copy, 'paywalld.js');
  const env = { NODE_PATH: '' };

  const created = await runCli(['projects', 'create', 'bundled', '--json'], { cwd: dir, script, env });
  assert.equal(created.status, 0, created.stderr);
  // The default database path is relative to the working directory.
  assert.ok(fs.existsSync(path.join(dir, 'data', 'paywalld.db')));

  const server = await spawnServe(t, [], { cwd: dir, script, env });
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  // The native uWS answered, not the pure-Node fallback of its JS wrapper.
  assert.equal(health.headers.get('uwebsockets'), '20');
  const { keys } = JSON.parse(created.stdout);
  assert.equal((await fetch(`${server.url}/api/keys`, { headers: { authorization: `Bearer ${keys.secret}` } })).status, 200);
  assert.equal(await server.stop(), 0);
});

test('SIGTERM stops accepting, finishes the request in flight, and exits 0', async (t) => {
  const dir = tempDir(t);
  const server = await spawnServe(t, ['--db', path.join(dir, 'shutdown.db')]);
  const socket = net.connect(server.port, '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  await new Promise((resolve) => socket.once('connect', resolve));
  const body = JSON.stringify({ scope: 'sdk' });
  // uWS answers "100 Continue" when it hands the request to paywalld, so once it arrives the request is in flight.
  socket.write(`POST /api/keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`);
  await new Promise<void>((resolve) => socket.on('data', () => answer.includes('100 Continue') && resolve()));
  socket.write(body.slice(0, 5));

  const exited = server.stop('SIGTERM');
  await until(() => server.output().includes('"msg":"shutting down"'), 'the server to log "shutting down"');
  // No new connections once draining has begun.
  await assert.rejects(new Promise((resolve, reject) => net.connect(server.port, '127.0.0.1').on('connect', resolve).on('error', reject)), /ECONNREFUSED/);
  socket.write(body.slice(5));
  await closed;
  assert.match(answer, /^HTTP\/1.1 100 Continue\r\n\r\nHTTP\/1.1 401 /);
  assert.equal(await exited, 0);
  assert.match(server.output(), /"msg":"stopped"/);
});
