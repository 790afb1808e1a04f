import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Logger } from '../src/log.ts';

function capture(level: 'info' | 'error', requestLinesPerSecond?: number, now?: () => number) {
  const lines: Record<string, unknown>[] = [];
  const log = new Logger(level, {
    requestLinesPerSecond,
    now,
    sink: (text) =>
      lines.push(
        ...text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ),
  });
  return { log, lines };
}

/** What the edge does: ask first, then write. */
function request(log: Logger, status: number): void {
  if (log.wantsRequest(status)) log.request({ method: 'GET', path: '/x', status, duration_ms: 0.1, request_id: 'r', ip: '127.0.0.1' });
}

test('request lines past the per-second cap are dropped and counted; 5xx lines never are', () => {
  const { log, lines } = capture('info', 3);
  for (let i = 0; i < 10; i++) request(log, 200);
  request(log, 500);
  log.flush();
  const requests = lines.filter((l) => l.msg === 'request');
  assert.equal(requests.filter((l) => l.status === 200).length, 3);
  assert.deepEqual(
    requests.filter((l) => l.status === 500).map((l) => l.level),
    ['error'],
  );
});

test('a cap of 0 writes only failed requests; level error keeps 5xx request lines too', () => {
  const none = capture('info', 0);
  request(none.log, 200);
  request(none.log, 503);
  none.log.flush();
  assert.deepEqual(
    none.lines.map((l) => l.status),
    [503],
  );
  const quiet = capture('error');
  request(quiet.log, 404);
  request(quiet.log, 500);
  quiet.log.info('not shown');
  quiet.log.flush();
  assert.deepEqual(
    quiet.lines.map((l) => l.status),
    [500],
  );
});

test('log lines are single JSON objects with time, level and msg first', () => {
  const { log, lines } = capture('info');
  log.warn('disk almost full', { free_bytes: 10 });
  assert.deepEqual(Object.keys(lines[0]!), ['time', 'level', 'msg', 'free_bytes']);
  assert.equal(lines[0]!.level, 'warn');
});

test('the lines dropped in a second are counted in one "request log sampled" line the next second', () => {
  let clock = 0;
  const { log, lines } = capture('info', 3, () => clock);
  for (let i = 0; i < 5; i++) request(log, 200);
  clock = 1000;
  request(log, 200);
  log.flush();
  assert.deepEqual(
    lines.map((l) => l.msg),
    ['request', 'request', 'request', 'request log sampled', 'request'],
  );
  assert.equal(lines[3]!.dropped, 2);
  assert.equal(lines[3]!.limit_per_second, 3);
});
