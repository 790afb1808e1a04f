/**
 * The test suite as `npm test` and its tier scripts run it: test files in
 * node:test's own processes, with every test server's answers recorded
 * (helpers/answers.ts) into a directory, then the check that the OpenAPI
 * document declares each of those answers (openapi/declared-answers.check.ts),
 * which needs all of them and so runs once the files are done.
 *
 * A file's tier is in its name (tierOf; architecture/tiers.unit.test.ts checks
 * that the name says what the file starts). `node --import tsx test/run.ts
 * [tier…]` runs those tiers, all of them without one: see main.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleTests } from './bundle.ts';
import { ANSWERS_DIR_VARIABLE } from './helpers/answers.ts';
import { BACKEND_VARIABLE } from './helpers/backend.ts';
import { SCALE_VARIABLE } from './helpers/scale.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** node:test's own reporter, naming places in the bundles by their sources (source-reporter.mjs). */
export const REPORTER = path.join(ROOT, 'test', 'source-reporter.mjs');

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
 * What a test file needs, from the least to the most, each tier named by the
 * end of its files' names:
 * - `unit`, `x.unit.test.ts`: pure, no server, no PostgreSQL, no browser (the CLI on a SQLite file is fine); seconds in all;
 * - `postgres`, `x.postgres.test.ts`: starts a PostgreSQL cluster (helpers/postgres.ts), and no server;
 * - `server`, `x.test.ts`: a real paywalld on a real port, in process or `paywalld serve` (and PostgreSQL, if it likes);
 * - `browser`, `x.browser.test.ts` (or a folder's `browser.test.ts`): opens Chromium;
 * - `scale`, `x.scale.test.ts`: big data; `npm test` runs it at an everyday size, `npm run test:scale` at scale (helpers/scale.ts).
 */
export const TIERS = ['unit', 'postgres', 'server', 'browser', 'scale'] as const;
export type Tier = (typeof TIERS)[number];

/** The tier a test file's name puts it in. */
export function tierOf(file: string): Tier {
  const name = path.basename(file);
  if (name.endsWith('.scale.test.ts')) return 'scale';
  if (name.endsWith('.browser.test.ts') || name === 'browser.test.ts') return 'browser';
  if (name.endsWith('.postgres.test.ts')) return 'postgres';
  if (name.endsWith('.unit.test.ts')) return 'unit';
  return 'server';
}

/**
 * A test that needs no HTTP server: the pure and the PostgreSQL tiers, and
 * the tests of the runtimes (`test/runtime/`: the bundle and the executable
 * on whichever Node.js runs them, starting serve only where a uWS build
 * fits). What .ci/run runs again under Node 24, where no uWS build loads on
 * Debian 12.
 */
export function isNoHttp(file: string): boolean {
  const tier = tierOf(file);
  return tier === 'unit' || tier === 'postgres' || file.startsWith(`test${path.sep}runtime${path.sep}`);
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

/** Where the tests find PostgreSQL: a test file importing it starts a cluster of its own. */
const POSTGRES_HELPER = /from '(?:\.\.\/)+helpers\/postgres\.ts'/;

/**
 * A test file that needs PostgreSQL: it imports helpers/postgres.ts itself
 * (the PostgreSQL tier, and server tests of the PostgreSQL backend:
 * several instances, `migrate-to`). helpers/backend.ts imports it too, for
 * `npm run test:postgres` only.
 */
export function needsPostgres(file: string): boolean {
  return POSTGRES_HELPER.test(fs.readFileSync(path.resolve(ROOT, file), 'utf8'));
}

/** This process's environment, less what marks a node:test child (run from a test file, the suite would otherwise report to it in its own protocol). */
function environment(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _child, ...rest } = process.env;
  return rest;
}

/**
 * Files at a time: six where each is pure, a server on SQLite or scale;
 * four where Chromium or PostgreSQL clusters run (a browser file keeps a
 * core busy on its own, a cluster starts several processes), which were
 * not measured at six.
 */
function concurrency(files: readonly string[], env: NodeJS.ProcessEnv): number {
  const heavy = env[BACKEND_VARIABLE] === 'postgres' || files.some((file) => tierOf(file) === 'browser' || needsPostgres(file));
  return heavy ? 4 : 6;
}

/**
 * Runs the test files, bundled (bundle.ts), in node:test's processes,
 * `concurrency` at a time, in the order given; its exit code. Most of a
 * file's time is spent waiting (on its servers, child processes,
 * PostgreSQL, Chromium): on 2 cores, four at a time took a fifth off npm
 * test against two, and six kept both cores busy where four left a third
 * idle (bench/notes/test-suite.md).
 */
async function nodeTest(files: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const bundled = await bundleTests(ROOT, files);
  try {
    const result = spawnSync(
      process.execPath,
      ['--test', `--test-concurrency=${concurrency(files, env)}`, `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', ...bundled.files],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...environment(), ...env },
      },
    );
    return result.status ?? 1;
  } finally {
    bundled.remove();
  }
}

/**
 * Runs the test files with the answers recorded into a new directory, then
 * the check on what they recorded; fails when either does. Without the
 * server tier there is too little to check (the check wants most operations
 * reached, to know the recording works): the files just run.
 */
async function recordedAndChecked(files: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  if (!files.some((file) => tierOf(file) === 'server')) return nodeTest(files, env);
  const answersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-answers-'));
  const status = await nodeTest(files, { ...env, [ANSWERS_DIR_VARIABLE]: answersDir });
  const checked = await nodeTest([DECLARED_ANSWERS_CHECK], { [ANSWERS_DIR_VARIABLE]: answersDir });
  fs.rmSync(answersDir, { recursive: true, force: true });
  return status !== 0 ? status : checked;
}

/** Runs every test file (less those named in `without`) with the answers recorded into a new directory; the exit code of node --test and the directory. */
export async function runRecordedSuite(without: readonly string[] = []): Promise<{ status: number; answersDir: string }> {
  const answersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-answers-'));
  const files = testFiles().filter((file) => !without.includes(path.basename(file)));
  return { status: await nodeTest(files, { [ANSWERS_DIR_VARIABLE]: answersDir }), answersDir };
}

export const DECLARED_ANSWERS_CHECK = 'test/openapi/declared-answers.check.ts';

/**
 * The files of `tiers` in the order they run: the scale tier first (at
 * scale, its 10⁷-user test takes minutes of one core: started last, it would
 * run alone while the other core idles), then browser, server, PostgreSQL
 * and pure; by name within a tier.
 */
export function filesOf(tiers: readonly Tier[], files = testFiles()): string[] {
  const rank = (file: string) => TIERS.length - TIERS.indexOf(tierOf(file));
  return files.filter((file) => tiers.includes(tierOf(file))).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * What `npm test` runs, the fast gate: every test that runs on Node.js
 * alone, the files of the pure, server and scale tiers that need no
 * PostgreSQL (needsPostgres). The browser tier, PostgreSQL's and the server
 * tests that start a cluster run with `npm run test:all`, and in .ci/run.
 * Under six minutes on a quiet 2-core machine (README.md, "Tests and
 * performance").
 */
export function gateFiles(): string[] {
  return filesOf(['unit', 'server', 'scale']).filter((file) => !needsPostgres(file));
}

/**
 * `npm test` and its tiers. Without tier names: the gate's files (gateFiles) (the
 * scale tier at its everyday size), then the check on the answers recorded
 * (when the server tier ran); fails when either does. Tier names (`unit`,
 * `postgres`, `server`, `browser`, `scale`) run those tiers only; `--scale` runs the
 * scale tier at scale; `--without <file name>` leaves a file out.
 * `--no-http` runs the tests that need no HTTP server (isNoHttp), and
 * nothing else; `--postgres` the PostgreSQL tier and the tests whose
 * servers follow the test backend, on PostgreSQL, then the check.
 */
export async function main(args: readonly string[]): Promise<number> {
  if (args.includes('--no-http')) return nodeTest(testFiles().filter(isNoHttp));
  if (args.includes('--postgres')) {
    const files = testFiles().filter((file) => tierOf(file) === 'postgres' || (!isNoHttp(file) && startsTestServers(file)));
    return recordedAndChecked(filesOf(TIERS, files), { [BACKEND_VARIABLE]: 'postgres' });
  }
  const unknown = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--without' && !TIERS.includes(arg as Tier));
  if (unknown.length > 0) {
    console.error(`unknown tier ${unknown.join(', ')}: the tiers are ${TIERS.join(', ')}`);
    return 2;
  }
  const named = TIERS.filter((tier) => args.includes(tier));
  const without = args.flatMap((arg, i) => (args[i - 1] === '--without' ? [arg] : []));
  const files = (named.length > 0 ? filesOf(named) : gateFiles()).filter((file) => !without.includes(path.basename(file)));
  return recordedAndChecked(files, args.includes('--scale') ? { [SCALE_VARIABLE]: '1' } : {});
}
