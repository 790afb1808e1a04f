/**
 * Small files with one job (CONTRIBUTING.md, "Rules"): no
 * source file in src/ is longer than 300 lines. A file that grows past it
 * has taken on a second job; split that job out rather than raise the bound.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_LINES = 300;
const SOURCE = /\.(ts|tsx|mts|mjs|css)$/;

function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return SOURCE.test(entry.name) ? [full] : [];
  });
}

test(`no source file in src/ is longer than ${MAX_LINES} lines`, () => {
  const files = sourceFiles();
  assert.ok(files.length > 100, 'the walk finds the source files');
  const long = files.flatMap((file) => {
    const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
    return lines > MAX_LINES ? [`${path.relative(SRC, file)}: ${lines} lines`] : [];
  });
  assert.deepEqual(long, []);
});
