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
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANSWERS_DIR_VARIABLE } from './helpers/answers.ts';

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

/** This process's environment, less what marks a node:test child (run from a test file, the suite would otherwise report to it in its own protocol). */
function environment(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _child, ...rest } = process.env;
  return rest;
}

function nodeTest(files: string[], answersDir?: string): number {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: answersDir === undefined ? environment() : { ...environment(), [ANSWERS_DIR_VARIABLE]: answersDir },
  });
  return result.status ?? 1;
}

/** Runs every test file (less those named in `without`) with the answers recorded into a new directory; the exit code of node --test and the directory. */
export function runRecordedSuite(without: readonly string[] = []): { status: number; answersDir: string } {
  const answersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-answers-'));
  const files = testFiles().filter((file) => !without.includes(path.basename(file)));
  return { status: nodeTest(files, answersDir), answersDir };
}

export const DECLARED_ANSWERS_CHECK = 'test/openapi/declared-answers.check.ts';

/** npm test: the suite, then the check on what it recorded; fails when either does. `--without <file name>` leaves a test file out; `--no-http` runs the tests that need no HTTP server, and nothing else. */
export function main(args: readonly string[]): number {
  if (args.includes('--no-http')) return nodeTest(testFiles().filter(isNoHttp));
  const without = args.flatMap((arg, i) => (args[i - 1] === '--without' ? [arg] : []));
  const { status, answersDir } = runRecordedSuite(without);
  const checked = nodeTest([DECLARED_ANSWERS_CHECK], answersDir);
  fs.rmSync(answersDir, { recursive: true, force: true });
  return status !== 0 ? status : checked;
}
