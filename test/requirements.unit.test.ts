/** needs(): skipped with the reason where a program is missing, never under CI. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atPath, inCi, needs, onPath } from './helpers/requirements.ts';

const ABSENT = atPath('Absent', '/nonexistent/absent', 'apt-get install -y absent');

function withCi<T>(value: string | undefined, run: () => T): T {
  const before = process.env.CI;
  if (value === undefined) delete process.env.CI;
  else process.env.CI = value;
  try {
    return run();
  } finally {
    if (before === undefined) delete process.env.CI;
    else process.env.CI = before;
  }
}

test('a missing program skips the test, naming it and how to install it', () => {
  assert.deepEqual(
    withCi(undefined, () => needs(ABSENT)),
    { skip: 'needs Absent (apt-get install -y absent); under CI=true this fails instead' },
  );
});

test('under CI=true a missing program does not skip: the test runs and fails', () => {
  assert.deepEqual(
    withCi('true', () => needs(ABSENT)),
    { skip: false },
  );
  assert.equal(inCi({ CI: '1' }), true);
  assert.equal(inCi({ CI: 'false' }), false);
});

test('a program found on PATH or at its path runs the test', () => {
  assert.deepEqual(
    withCi(undefined, () => needs(onPath('node', ''), atPath('node', process.execPath, ''))),
    { skip: false },
  );
  assert.equal(onPath('no-such-program-here', '').find(), undefined);
});
