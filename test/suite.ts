/**
 * The whole test suite as `npm test` runs it: every test/**\/*.test.ts in
 * node:test's own processes, with every test server's answers recorded
 * (helpers/answers.ts) into a directory, then the check that the OpenAPI
 * document declares each of those answers (openapi/declared-answers.check.ts),
 * which needs all of them and so runs once the files are done.
 *
 * `--no-http` (npm run test:no-http) runs only the tests that need no HTTP
 * server, known by place and name (isNoHttp): what .ci/run runs again under
 * Node 24, where no uWS build loads on Debian 12.
 *
 * `--postgres` (npm run test:postgres) runs the black-box tests whose servers
 * follow the test backend (startsTestServers) on PostgreSQL
 * (helpers/backend.ts), recorded and checked as npm test's: the unit tests
 * already run on both backends in npm test.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANSWERS_DIR_VARIABLE } from './helpers/answers.ts';
import { BACKEND_VARIABLE } from './helpers/backend.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every test file under `dir`, relative to the repository (`test/db/watch.unit.test.ts`). */
export function testFiles(dir = path.join(ROOT, 'test')): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
      return entry.name.endsWith('.test.ts') ? [path.relative(ROOT, full)] : [];
    })
    .sort();
}

/**
 * A test that needs no HTTP server: a unit test (`*.unit.test.ts`: starts no
 * server, in process or child, and imports nothing that does; checked by
 * architecture/no-http.unit.test.ts), or a test of the runtimes
 * (`test/runtime/`: the bundle and the executable on whichever Node.js runs
 * them, starting serve only where a uWS build fits).
 */
export function isNoHttp(file: string): boolean {
  return file.endsWith('.unit.test.ts') || file.startsWith(`test${path.sep}runtime${path.sep}`);
}

/** What starts a server on the test backend (helpers/server.ts, which defines them, is not read for it). */
const TEST_SERVER_CALL = /\b(?:startTestServer|serverOn|restartServer)\(/;
const RELATIVE_IMPORT = /(?:from|import)\s+'(\.{1,2}\/[^']+\.ts)'/g;
const SERVER_HELPER = path.join(ROOT, 'test', 'helpers', 'server.ts');

/**
 * A test file whose servers follow the test backend: it, or a test module it
 * imports (helpers/client.ts's seededServer), starts one through
 * helpers/server.ts. The others (a `serve` on a file of their own, the
 * browser, the bundle) would run the same on either switch.
 */
export function startsTestServers(file: string, seen = new Set<string>()): boolean {
  const full = path.resolve(ROOT, file);
  if (seen.has(full) || full === SERVER_HELPER || !full.startsWith(path.join(ROOT, 'test'))) return false;
  seen.add(full);
  const text = fs.readFileSync(full, 'utf8');
  if (TEST_SERVER_CALL.test(text)) return true;
  return [...text.matchAll(RELATIVE_IMPORT)].some((match) => startsTestServers(path.resolve(path.dirname(full), match[1]!), seen));
}

/** This process's environment, less what marks a node:test child (run from a test file, the suite would otherwise report to it in its own protocol). */
function environment(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _child, ...rest } = process.env;
  return rest;
}

function nodeTest(files: string[], env: NodeJS.ProcessEnv = {}): number {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...environment(), ...env },
  });
  return result.status ?? 1;
}

/** Runs the test files with the answers recorded into a new directory, then the check on what they recorded; fails when either does. */
function recordedAndChecked(files: string[], env: NodeJS.ProcessEnv = {}): number {
  const answersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-answers-'));
  const status = nodeTest(files, { ...env, [ANSWERS_DIR_VARIABLE]: answersDir });
  const checked = nodeTest([DECLARED_ANSWERS_CHECK], { [ANSWERS_DIR_VARIABLE]: answersDir });
  fs.rmSync(answersDir, { recursive: true, force: true });
  return status !== 0 ? status : checked;
}

/** Runs every test file (less those named in `without`) with the answers recorded into a new directory; the exit code of node --test and the directory. */
export function runRecordedSuite(without: readonly string[] = []): { status: number; answersDir: string } {
  const answersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-answers-'));
  const files = testFiles().filter((file) => !without.includes(path.basename(file)));
  return { status: nodeTest(files, { [ANSWERS_DIR_VARIABLE]: answersDir }), answersDir };
}

export const DECLARED_ANSWERS_CHECK = 'test/openapi/declared-answers.check.ts';

/**
 * npm test: the suite, then the check on what it recorded; fails when either
 * does. `--without <file name>` leaves a test file out; `--no-http` runs the
 * tests that need no HTTP server, and nothing else; `--postgres` the tests
 * whose servers follow the test backend, on PostgreSQL, then the check.
 */
export function main(args: readonly string[]): number {
  if (args.includes('--no-http')) return nodeTest(testFiles().filter(isNoHttp));
  if (args.includes('--postgres')) {
    const files = testFiles().filter((file) => !isNoHttp(file) && startsTestServers(file));
    return recordedAndChecked(files, { [BACKEND_VARIABLE]: 'postgres' });
  }
  const without = args.flatMap((arg, i) => (args[i - 1] === '--without' ? [arg] : []));
  return recordedAndChecked(testFiles().filter((file) => !without.includes(path.basename(file))));
}
