/** The dashboard's line diff: both texts come back out of it, and a changed line reads − old, then + new. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLines } from '../../src/dashboard/ui/editor/diff.ts';

const sides = (lines: ReturnType<typeof diffLines>) => ({
  before: lines.filter((line) => line.op !== '+').map((line) => line.text),
  after: lines.filter((line) => line.op !== '-').map((line) => line.text),
});

test('a changed line is listed as the removed line, then the added one', () => {
  assert.deepEqual(diffLines('{\n  "title": "Go Pro"\n}', '{\n  "title": "Go Pro today"\n}'), [
    { op: ' ', text: '{' },
    { op: '-', text: '  "title": "Go Pro"' },
    { op: '+', text: '  "title": "Go Pro today"' },
    { op: ' ', text: '}' },
  ]);
  assert.deepEqual(
    diffLines('a\nb\nc\nd', 'a\nB\nC\nd').map((line) => line.op),
    [' ', '-', '-', '+', '+', ' '],
  );
});

test('every diff gives back both texts, whatever the edit', () => {
  const texts = ['', 'a', 'a\nb\nc', 'x\na\ny\nb', 'b\nc\na', 'a\na\nb\nb', '1\n2\n3\n4\n5'];
  for (const before of texts) {
    for (const after of texts) {
      const { before: a, after: b } = sides(diffLines(before, after));
      assert.deepEqual([a.join('\n'), b.join('\n')], [before, after], `${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    }
  }
});
