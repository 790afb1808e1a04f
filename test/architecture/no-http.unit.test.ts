/**
 * The rule that names the tests needing no HTTP server (isNoHttp in
 * suite.ts): a `*.unit.test.ts` file starts no server, in process or as a
 * child, and imports no test module that does. `npm run test:no-http` runs
 * these under Node 24 in .ci/run, where no uWS build loads on Debian 12: a
 * unit file that started a server would fail there only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isNoHttp, testFiles } from '../suite.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; group 1 is `type ` for type-only imports. */
const IMPORT = /\b(?:import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s*)?'([^']+)'|\bimport\s*\(\s*'([^']+)'/g;
/** A call (not the definition) of what starts a server, or a CLI run whose command is serve. */
const STARTS_SERVER = /(?<!function )\b(?:startTestServer|serverOn|restartServer|startServer|spawnServe)\s*\(|\(\s*\[\s*'serve'/;
/** The modules that serve HTTP: importing them is what starting a server takes. */
const SERVING_MODULES = new Set(['src/app.ts', 'src/http/server.ts']);

/** What in `file`, or in the test modules it imports (value imports, followed through test/), starts a server or imports what serves. */
function serverUses(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found = STARTS_SERVER.test(text) ? [`${file} starts a server`] : [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = (match[2] ?? match[3])!;
    if (match[1] !== undefined || !specifier.startsWith('.')) continue;
    const target = path
      .relative(ROOT, path.resolve(ROOT, path.dirname(file), specifier))
      .split(path.sep)
      .join('/');
    if (SERVING_MODULES.has(target)) found.push(`${file} imports ${target}`);
    else if (target.startsWith('test/') && fs.existsSync(path.join(ROOT, target))) found.push(...serverUses(target, seen));
  }
  return found;
}

test('the scan sees a server started in process, through a helper, and as a child process', () => {
  assert.ok(serverUses('test/helpers/server.ts').some((use) => use.includes('imports src/app.ts')));
  assert.ok(serverUses('test/events/writer.test.ts').some((use) => use.startsWith('test/helpers/server.ts')));
  assert.ok(serverUses('test/cli/serve.test.ts').includes('test/cli/serve.test.ts starts a server'));
  assert.deepEqual(serverUses('test/helpers/cli.ts'), []);
});

test('npm run test:no-http runs the runtime tests and the unit tests, and no other', () => {
  const selected = testFiles().filter(isNoHttp);
  assert.ok(selected.includes(path.join('test', 'runtime', 'exe.test.ts')));
  assert.ok(selected.includes(path.join('test', 'architecture', 'no-http.unit.test.ts')));
  assert.ok(!selected.includes(path.join('test', 'cli', 'serve.test.ts')));
  assert.ok(selected.filter((file) => file.endsWith('.unit.test.ts')).length >= 18);
});

test('no unit test starts a server or imports a test module that does', () => {
  const units = testFiles()
    .filter((file) => file.endsWith('.unit.test.ts'))
    .map((file) => file.split(path.sep).join('/'));
  assert.deepEqual(
    units.flatMap((file) => serverUses(file).map((use) => `${file}: ${use}`)),
    [],
    'a test that needs a server is named *.test.ts, not *.unit.test.ts (npm run test:no-http runs unit tests where uWS cannot load)',
  );
});
