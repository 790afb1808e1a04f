/**
 * docs/errors.md lists every error code the server can answer with, with its
 * status: the codes are read from the source (the ErrorCode union and its
 * statuses, and every ProblemError the edge or a feature builds), so a new
 * code without a row fails here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** code → the statuses the source gives it. */
function codesInSource(): Map<string, Set<number>> {
  const codes = new Map<string, Set<number>>();
  const add = (code: string, status: number) => {
    if (!codes.has(code)) codes.set(code, new Set());
    codes.get(code)!.add(status);
  };
  const errors = fs.readFileSync(path.join(ROOT, 'src/shared/errors.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]+);/.exec(errors);
  assert.ok(union, 'src/shared/errors.ts declares the ErrorCode union');
  const statusTable = fs.readFileSync(path.join(ROOT, 'src/http/status.ts'), 'utf8');
  for (const [, code] of union[1]!.matchAll(/'([a-z_]+)'/g)) {
    const status = new RegExp(`\\b${code}: (\\d{3})`).exec(statusTable);
    assert.ok(status, `src/http/status.ts maps ${code}`);
    add(code!, Number(status[1]));
  }
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const [, status, code] of text.matchAll(/new ProblemError\(\s*(\d{3}),\s*'([a-z_]+)'/g)) add(code!, Number(status));
  }
  return codes;
}

/** code → status of each row of the first table of docs/errors.md. */
function documentedCodes(): Map<string, number> {
  const text = fs.readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');
  const rows = new Map<string, number>();
  for (const [, status, code] of text.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)) rows.set(code!, Number(status));
  return rows;
}

test('docs/errors.md lists every error code the source can produce, with its status', () => {
  const source = codesInSource();
  const documented = documentedCodes();
  assert.ok(source.size >= 25, `found ${source.size} codes in the source`);
  const missing = [...source.keys()].filter((code) => !documented.has(code));
  assert.deepEqual(missing, [], 'codes missing from docs/errors.md');
  for (const [code, statuses] of source) {
    assert.deepEqual([...statuses], [documented.get(code)], `status of ${code}`);
  }
});
