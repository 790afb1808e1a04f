import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUNDLES_DIR, sourceOfBundle } from './helpers/bundles.ts';

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
