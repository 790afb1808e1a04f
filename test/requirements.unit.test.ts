/** needs(): skipped with the reason where a program is missing, never under CI; a test about SQLite skipped on PostgreSQL, under CI too. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKEND_VARIABLE, testBackend } from './helpers/backend.ts';
import { atPath, inCi, needs, onPath, SQLITE_BACKEND } from './helpers/requirements.ts';
import { startsTestServers } from './suite.ts';

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

function withBackend<T>(value: string | undefined, run: () => T): T {
  const before = process.env[BACKEND_VARIABLE];
  if (value === undefined) delete process.env[BACKEND_VARIABLE];
  else process.env[BACKEND_VARIABLE] = value;
  try {
    return run();
  } finally {
    if (before === undefined) delete process.env[BACKEND_VARIABLE];
    else process.env[BACKEND_VARIABLE] = before;
  }
}

test('a test about the SQLite file runs on SQLite and is skipped on PostgreSQL, under CI too, saying why', () => {
  for (const ci of [undefined, 'true']) {
    assert.deepEqual(
      withCi(ci, () => withBackend(undefined, () => needs(SQLITE_BACKEND))),
      { skip: false },
    );
    assert.deepEqual(
      withCi(ci, () => withBackend('postgres', () => needs(SQLITE_BACKEND, ABSENT))),
      { skip: 'about the SQLite file: runs on the sqlite backend only' },
    );
  }
});

test('the backend switch takes sqlite or postgres, nothing else', () => {
  assert.equal(testBackend({}), 'sqlite');
  assert.equal(testBackend({ [BACKEND_VARIABLE]: 'sqlite' }), 'sqlite');
  assert.equal(testBackend({ [BACKEND_VARIABLE]: 'postgres' }), 'postgres');
  assert.throws(() => testBackend({ [BACKEND_VARIABLE]: 'postgresql' }), /expected sqlite or postgres/);
});

test('npm run test:postgres takes the files that start a test server, directly or through a helper', () => {
  assert.equal(startsTestServers('test/events/writer.test.ts'), true);
  // Through helpers/client.ts's seededServer.
  assert.equal(startsTestServers('test/client/identity.test.ts'), true);
  // A serve of its own on a file, and no server at all.
  assert.equal(startsTestServers('test/cli/serve-ownership.test.ts'), false);
  assert.equal(startsTestServers('test/architecture/imports.unit.test.ts'), false);
});
