/**
 * A test file's name says its tier (tierOf in suite.ts), and the tier is what
 * the file starts, read from its source and the test modules it imports:
 * a browser (`x.browser.test.ts`, or a folder's `browser.test.ts`), else a
 * paywalld server (`x.test.ts`), else a PostgreSQL cluster
 * (`x.postgres.test.ts`), else nothing (`x.unit.test.ts`); a file sized by
 * helpers/scale.ts is `x.scale.test.ts`. `npm run test:unit` runs in seconds
 * because no pure test starts any of those, and `npm run test:no-http` (the
 * pure and PostgreSQL tiers under Node 24 in .ci/run, where no uWS build
 * loads) because neither starts a server.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gateFiles, isNoHttp, type Tier, testFiles, tierOf } from '../suite.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; group 1 is `type ` for type-only imports. */
const IMPORT = /\b(?:import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s*)?'([^']+)'|\bimport\s*\(\s*'([^']+)'/g;
/** A call (not the definition) of what starts each, or a CLI run whose command is serve. */
const STARTS = {
  server: /(?<!function )\b(?:startTestServer|serverOn|restartServer|startServer|spawnServe)\s*\(|\(\s*\[\s*'serve'/,
  postgres: /(?<!function )\b(?:postgresCluster|postgresDatabase|newPostgresDatabase)\s*\(/,
  browser:
    /(?<!function )\b(?:openBrowser|launchBrowser|connectOverCDP)\s*\(|\b(?:chromium|firefox|webkit|puppeteer)\.launch\w*\s*\(|\b(?:spawn|spawnSync|execFile|execFileSync)\(\s*CHROMIUM\b/,
};
type Start = keyof typeof STARTS;
/** Packages that drive a browser: a value import of one is a browser test. */
const BROWSER_PACKAGES = new Set(['playwright-core', 'playwright', '@playwright/test', 'puppeteer', 'puppeteer-core']);
/** The modules that serve HTTP: importing them is what starting a server takes. */
const SERVING_MODULES = new Set(['src/app.ts', 'src/http/server.ts']);
/** It starts a cluster only for a test server's database under PAYWALLD_TEST_BACKEND=postgres: the server tier's business, not its importers'. */
const BACKEND_SWITCH = 'test/helpers/backend.ts';
const SCALE_HELPER = 'test/helpers/scale.ts';

interface Found {
  start: Start;
  /** Where: `test/x.test.ts starts a server`, `test/helpers/browser.ts imports playwright-core`. */
  why: string;
}

/** The value imports of `file`: packages by name, relative ones as paths from the repository (`test/helpers/server.ts`). */
function valueImports(file: string): string[] {
  return [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(IMPORT)].flatMap((match) => {
    const specifier = (match[2] ?? match[3])!;
    if (match[1] !== undefined) return [];
    if (!specifier.startsWith('.')) return [specifier];
    return [
      path
        .relative(ROOT, path.resolve(ROOT, path.dirname(file), specifier))
        .split(path.sep)
        .join('/'),
    ];
  });
}

/** What `file` starts, itself or through the test modules it imports (followed through test/). */
function starts(file: string, seen = new Set<string>()): Found[] {
  if (seen.has(file) || file === BACKEND_SWITCH) return [];
  seen.add(file);
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found: Found[] = (Object.keys(STARTS) as Start[])
    .filter((start) => STARTS[start].test(text))
    .map((start) => ({ start, why: `${file} starts ${start === 'postgres' ? 'PostgreSQL' : `a ${start}`}` }));
  for (const target of valueImports(file)) {
    if (BROWSER_PACKAGES.has(target)) found.push({ start: 'browser', why: `${file} imports ${target}` });
    else if (SERVING_MODULES.has(target)) found.push({ start: 'server', why: `${file} imports ${target}` });
    else if (target.startsWith('test/') && fs.existsSync(path.join(ROOT, target))) found.push(...starts(target, seen));
  }
  return found;
}

/** The tier what `file` starts puts it in. */
function tierByWhatItStarts(file: string): { tier: Tier; why: string[] } {
  const found = starts(file);
  const why = (start: Start) => found.filter((use) => use.start === start).map((use) => use.why);
  if (valueImports(file).includes(SCALE_HELPER)) return { tier: 'scale', why: [`${file} imports ${SCALE_HELPER}`] };
  for (const [start, tier] of [
    ['browser', 'browser'],
    ['server', 'server'],
    ['postgres', 'postgres'],
  ] as const) {
    if (why(start).length > 0) return { tier, why: why(start) };
  }
  return { tier: 'unit', why: ['it starts no server, no PostgreSQL and no browser'] };
}

/** The name `file` needs for `tier`: its own with the tier's ending instead of the one it has. */
function renamed(file: string, tier: Tier): string {
  const base = file.replace(/(?:\.(?:unit|postgres|browser|scale))?\.test\.ts$/, '').replace(/(^|\/)browser$/, '$1browser-test');
  return tier === 'server' ? `${base}.test.ts` : `${base}.${tier}.test.ts`;
}

const posix = (file: string) => file.split(path.sep).join('/');

test('the scan sees a server, PostgreSQL and a browser started in the file, through a helper, and as a child process', () => {
  const startsOf = (file: string) => new Set(starts(file).map((use) => use.start));
  assert.ok(starts('test/helpers/server.ts').some((use) => use.why.includes('imports src/app.ts')));
  assert.deepEqual(startsOf('test/helpers/requirements.ts'), new Set());
  assert.ok(startsOf('test/cli/serve.test.ts').has('server'));
  assert.ok(startsOf('test/helpers/storage-backends.ts').has('postgres'));
  assert.ok(startsOf('test/helpers/browser.ts').has('browser'));
  assert.deepEqual(tierByWhatItStarts('test/dashboard/route.browser.test.ts').tier, 'browser');
  assert.deepEqual(tierByWhatItStarts('test/client/browser.test.ts').tier, 'browser');
  assert.deepEqual(tierByWhatItStarts('test/stores/keys.postgres.test.ts').tier, 'postgres');
  assert.deepEqual(tierByWhatItStarts('test/experiments/large-phase.scale.test.ts').tier, 'scale');
  assert.deepEqual(tierByWhatItStarts('test/config.unit.test.ts').tier, 'unit');
});

test('a name says the tier, and a wrong one is told the name it needs', () => {
  assert.equal(tierOf('test/x/a.unit.test.ts'), 'unit');
  assert.equal(tierOf('test/x/a.postgres.test.ts'), 'postgres');
  assert.equal(tierOf('test/x/a.test.ts'), 'server');
  assert.equal(tierOf('test/x/a.browser.test.ts'), 'browser');
  assert.equal(tierOf('test/x/browser.test.ts'), 'browser');
  assert.equal(tierOf('test/x/a.scale.test.ts'), 'scale');
  assert.equal(renamed('test/db/postgres-watch.unit.test.ts', 'postgres'), 'test/db/postgres-watch.postgres.test.ts');
  assert.equal(renamed('test/events/ordinal-set.test.ts', 'unit'), 'test/events/ordinal-set.unit.test.ts');
  assert.equal(renamed('test/dashboard/route.test.ts', 'browser'), 'test/dashboard/route.browser.test.ts');
  assert.equal(renamed('test/x/browser.test.ts', 'server'), 'test/x/browser-test.test.ts');
});

test('every test file is named for its tier: what it starts', () => {
  const misnamed = testFiles()
    .map(posix)
    .flatMap((file) => {
      const { tier, why } = tierByWhatItStarts(file);
      return tierOf(file) === tier ? [] : [`${file} is a ${tier} test (${why.join('; ')}): name it ${renamed(file, tier)}`];
    });
  assert.deepEqual(misnamed, [], 'CONTRIBUTING.md, "Tests": a test file is named for what it starts');
});

/** `needs(…CHROMIUM_PROGRAM…)` in a test's options: skipped where Chromium is missing, failed under CI=true (helpers/browser.ts). */
const NEEDS_CHROMIUM = /\bneeds\([^)]*\bCHROMIUM_PROGRAM\b/;

test('every test file that opens a browser declares needs(CHROMIUM_PROGRAM), so that it skips where Chromium is missing', () => {
  const undeclared = testFiles()
    .map(posix)
    .filter((file) => starts(file).some((use) => use.start === 'browser') && !NEEDS_CHROMIUM.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  assert.ok(
    testFiles()
      .map(posix)
      .filter((file) => tierOf(file) === 'browser').length >= 5,
  );
  assert.deepEqual(undeclared, [], 'a test that opens Chromium passes needs(CHROMIUM_PROGRAM) (test/helpers/browser.ts) in its options');
});

test('npm run test:no-http runs the pure and PostgreSQL tiers and the runtime tests, and nothing else starts a server', () => {
  const selected = testFiles().map(posix).filter(isNoHttp);
  assert.ok(selected.includes('test/runtime/exe.test.ts'));
  assert.ok(selected.includes('test/architecture/tiers.unit.test.ts'));
  assert.ok(selected.includes('test/db/postgres-watch.postgres.test.ts'));
  assert.ok(!selected.includes('test/cli/serve.test.ts'));
  assert.ok(selected.length >= 55);
  const serving = selected.filter((file) => !file.startsWith('test/runtime/') && starts(file).some((use) => use.start === 'server'));
  assert.deepEqual(serving, []);
});

test('npm test runs every pure, server and scale file that starts neither PostgreSQL nor a browser, and nothing else', () => {
  const gate = gateFiles().map(posix);
  const alone = testFiles()
    .map(posix)
    .filter((file) => tierOf(file) !== 'browser' && tierOf(file) !== 'postgres' && !starts(file).some((use) => use.start === 'postgres'));
  assert.deepEqual([...gate].sort(), alone);
  assert.ok(gate.includes('test/keys/auth.test.ts'));
  assert.ok(!gate.includes('test/scale-out/faults.test.ts'));
  assert.ok(!gate.includes('test/cli/migrate-to.test.ts'));
});
