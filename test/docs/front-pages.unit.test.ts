/**
 * README.md is the front page and BENCHMARKS.md the latest figures: both stay
 * short, and the manual and the history live in docs/ and bench/notes/. The
 * README reaches every page of docs/ by a link, and quotes no benchmark figure:
 * it links to BENCHMARKS.md's table, so that a figure is never typed twice.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');
const lines = (file: string): number => read(file).trimEnd().split('\n').length;

/** Every Markdown page under docs/. */
const docsPages = (dir = 'docs'): string[] =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? docsPages(`${dir}/${entry.name}`) : entry.name.endsWith('.md') ? [`${dir}/${entry.name}`] : []));

test('README.md is at most 250 lines and BENCHMARKS.md at most 300', () => {
  assert.ok(lines('README.md') <= 250, `README.md has ${lines('README.md')} lines: move the section into docs/ and link it`);
  assert.ok(lines('BENCHMARKS.md') <= 300, `BENCHMARKS.md has ${lines('BENCHMARKS.md')} lines: move the older runs into bench/notes/`);
});

test('README.md links to every page of docs/', () => {
  const linked = new Set([...read('README.md').matchAll(/\]\((docs\/[^)#\s]+\.md)/g)].map((match) => match[1]!));
  const pages = docsPages();
  assert.ok(pages.length >= 20, `found ${pages.length} pages under docs/`);
  assert.deepEqual(
    pages.filter((page) => !linked.has(page)),
    [],
  );
});

test("README.md quotes no benchmark figure: it links to BENCHMARKS.md's latest results", () => {
  const readme = read('README.md');
  assert.match(readme, /\]\(BENCHMARKS\.md#latest-results\)/);
  assert.match(read('BENCHMARKS.md'), /^## Latest results$/m);
  assert.deepEqual(readme.match(/\d[\d,.]*\s*(?:k\s*)?(?:req\/s|events\/s|req\/CPU-s|ms p\d\d)|p(?:50|99) [\d.]+ ms|\d+ MB RSS/g), null);
});

test('README.md states how long the tests take and names the quick suite', () => {
  const readme = read('README.md');
  assert.match(readme, /`npm test` takes about \d+ minutes/);
  assert.match(readme, /`npm run test:unit`[^.]*about \d+ seconds/);
});
