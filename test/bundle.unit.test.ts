import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleTests } from './bundle.ts';
import { BUNDLES_DIR, sourceOfBundle } from './helpers/bundles.ts';
import { REPORTER } from './suite.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

test('a test file run from its bundle keeps its own import.meta, and its bundle maps back to it', () => {
  // Under npm test this module runs from node_modules/.cache/paywalld-tests/run-…/0123/test/bundle.unit.test.mjs (bundle.ts).
  const own = path.join('test', 'bundle.unit.test.ts');
  assert.equal(path.relative(ROOT, fileURLToPath(import.meta.url)), own);
  assert.equal(import.meta.filename, fileURLToPath(import.meta.url));
  assert.equal(import.meta.dirname, path.dirname(import.meta.filename));
  assert.equal(sourceOfBundle(path.relative(process.cwd(), process.argv[1]!)), own);
  assert.equal(sourceOfBundle(path.join(BUNDLES_DIR, 'run-a1b2c3', '0007', 'test', 'x', 'y.test.mjs')), path.join('test', 'x', 'y.test.ts'));
  assert.equal(sourceOfBundle(path.join(ROOT, BUNDLES_DIR, 'run-a1b2c3', '0000', 'test', 'y.test.mjs')), path.join('test', 'y.test.ts'));
  assert.equal(sourceOfBundle(path.join('test', 'y.test.ts')), path.join('test', 'y.test.ts'));
});

test('a failure of a bundled test file is reported at the lines of its sources, the test file and the module that threw', async (t) => {
  const bundled = await bundleTests(ROOT, [path.join('test', 'fixtures', 'fails.fixture.ts')]);
  t.after(bundled.remove);
  // Without NODE_TEST_CONTEXT: run from a test process, node --test would report to it in its own protocol.
  const { NODE_TEST_CONTEXT: _child, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', ...bundled.files], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  assert.equal(run.status, 1, run.stderr);
  const fixture = path.join(ROOT, 'test', 'fixtures', 'fails.fixture.ts');
  assert.match(run.stdout, new RegExp(`location: '${fixture}:6:1'`));
  assert.match(run.stdout, new RegExp(`\\(file://${fixture}:7:10\\)`));
  assert.match(run.stdout, new RegExp(`\\(file://${path.join(ROOT, 'src', 'config.ts')}:\\d+:\\d+\\)`));
  assert.match(run.stdout, new RegExp(`\\(file://${fixture}:11:3\\)`));
  assert.doesNotMatch(run.stdout, /paywalld-tests/);
});
