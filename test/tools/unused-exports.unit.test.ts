/** The unused-export check of npm run lint (tools/unused-exports.mjs), on small trees laid out like the repository. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestContext, test } from 'node:test';

const SCRIPT = path.resolve(import.meta.dirname, '../../tools/unused-exports.mjs');

function tree(t: TestContext, files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-exports-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

function check(root: string): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

const SHAPES = `export const SHAPE = 1;
export function area(): number { return SHAPE; }
export interface Box { side: number }
export type Side = number;
`;

test('an export of src/ that only its own file uses fails, with its file and name', (t) => {
  const root = tree(t, { 'src/main.ts': "import { area } from './shapes.ts';\narea();\n", 'src/shapes.ts': SHAPES });
  const { status, stderr } = check(root);
  assert.equal(status, 1);
  assert.match(stderr, /src\/shapes\.ts: SHAPE/);
  assert.match(stderr, /src\/shapes\.ts: Box/);
  assert.match(stderr, /src\/shapes\.ts: Side/);
  assert.doesNotMatch(stderr, /: area/);
});

test('imports count from anywhere: tests, types, re-exports, namespaces and dynamic imports', (t) => {
  const root = tree(t, {
    'src/main.ts': "const { area } = await import('./shapes.ts');\narea();\n",
    'src/shapes.ts': SHAPES,
    'src/index.ts': "export { SHAPE } from './shapes.ts';\n",
    'src/uses-index.ts': "import { SHAPE } from './index.ts';\nexport const twice = SHAPE * 2;\n",
    'src/types.ts': "import * as shapes from './shapes.ts';\nexport const box: shapes.Box = { side: 1 };\n",
    'test/shapes.test.ts':
      // Double quotes: the fixture's imports are the fixture's, not this test's (test/architecture/test-imports.unit.test.ts reads single-quoted ones).
      'import type { Side } from "../src/shapes.ts";\nimport { twice } from "../src/uses-index.ts";\nimport { box } from "../src/types.ts";\nconst s: Side = twice + box.side;\n',
  });
  const { status, stderr } = check(root);
  assert.equal(status, 0, stderr);
});

test('an import in a comment is not a use', (t) => {
  const root = tree(t, {
    'src/main.ts':
      "// import { SHAPE } from './shapes.ts';\n/* import { Box } from './shapes.ts'; */\nimport { area, type Side } from './shapes.ts';\nconst s: Side = area();\n",
    'src/shapes.ts': SHAPES,
  });
  const { status, stderr } = check(root);
  assert.equal(status, 1);
  assert.match(stderr, /src\/shapes\.ts: SHAPE\n\s+src\/shapes\.ts: Box$/m);
});
