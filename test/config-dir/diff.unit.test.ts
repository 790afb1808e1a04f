import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, jsonDiff } from '../../src/config-dir/diff.ts';

test('key order does not count as a change; array order does', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 }));
  assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
  assert.deepEqual(jsonDiff({ b: 1, a: 2 }, { a: 2, b: 1 }), []);
});

test('each hunk says where it is, with keys escaped as JSON pointers and array indexes counted', () => {
  const before = { 'a/b': { '~x': 1 }, list: [[], { id: 'p', empty: {} }, [0, 1]], z: 'same' };
  const after = { 'a/b': { '~x': 2 }, list: [[], { id: 'p', empty: {} }, [0, 3]], z: 'same' };
  const lines = jsonDiff(before, after);
  const headers = lines.filter((line) => line.startsWith('at '));
  assert.deepEqual(headers, ['at /a~1b/~0x:', 'at /list/2/1:']);
  assert.ok(lines.includes('-     "~x": 1') && lines.includes('+     "~x": 2'), lines.join('\n'));
});

test('an added key is located in the new document, a removed one in the old', () => {
  assert.deepEqual(
    jsonDiff({ a: 1 }, { a: 1, b: { c: true } }).filter((l) => l.startsWith('at ')),
    ['at /b:'],
  );
  assert.deepEqual(
    jsonDiff({ a: 1, gone: [1] }, { a: 1 }).filter((l) => l.startsWith('at ')),
    ['at /gone:'],
  );
});
