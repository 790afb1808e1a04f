/**
 * One test harness: what more than one feature's tests use lives in
 * test/helpers/, so a test file imports from test/helpers/, its own folder
 * or the suite (test/*.ts), never from another feature's test folder
 * (CONTRIBUTING.md, "Tests").
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const TEST = path.resolve(import.meta.dirname, '..');
/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`. */
const IMPORT = /\b(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\bfrom\s*)?'([^']+)'|\bimport\s*\(\s*'([^']+)'/g;

function testModules(dir = TEST): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testModules(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The folder of a file under test/ (`events` for events/dedup.test.ts, '' for a file directly in test/). */
const folder = (file: string) => path.dirname(path.relative(TEST, file)).split(path.sep)[0]!.replace(/^\.$/, '');

/** Every import of one test file from another test folder than its own, test/helpers/ and test/ itself. */
function crossFolderImports(): string[] {
  return testModules().flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((match) => {
      const specifier = (match[1] ?? match[2])!;
      if (!specifier.startsWith('.')) return [];
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(TEST + path.sep)) return [];
      const to = folder(target);
      return to === '' || to === 'helpers' || to === folder(file) ? [] : [`${path.relative(TEST, file)} -> ${path.relative(TEST, target)}`];
    }),
  );
}

test('the scan sees the imports of the test files', () => {
  const modules = testModules().map((file) => path.relative(TEST, file));
  assert.ok(modules.includes(path.join('helpers', 'server.ts')));
  assert.equal(folder(path.join(TEST, 'events', 'dedup.test.ts')), 'events');
  assert.equal(folder(path.join(TEST, 'suite.ts')), '');
});

test("no test imports from another feature's test folder", () => {
  assert.deepEqual(crossFolderImports(), [], 'move what several features use into test/helpers/');
});
