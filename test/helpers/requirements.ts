/**
 * Programs some tests need that Node.js does not bring (a browser, curl,
 * strace). A test declares them with `needs(...)` in its options: when one is
 * missing it is skipped and the reason is printed in the test report, so that
 * `npm test` passes on a machine with only Node.js; under `CI=true` nothing is
 * skipped, and the test fails on the missing program, because CI must run
 * every test. The one other skip: a test about the SQLite backend itself
 * (`SQLITE_BACKEND`) in the run on PostgreSQL (`npm run test:postgres`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type TestBackend, testBackend } from './backend.ts';

export interface Program {
  /** What the report calls it. */
  name: string;
  /** Where it is, or undefined when absent. */
  find(): string | undefined;
  /** How to install it (Debian). */
  install: string;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A program looked up on PATH, as a shell would. */
export function onPath(name: string, install: string): Program {
  return {
    name,
    install,
    find: () =>
      (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, name))
        .find(executable),
  };
}

/** A program at a fixed path (which an environment variable may move, or point nowhere to try the skip). */
export function atPath(name: string, file: string, install: string): Program {
  return { name, install, find: () => (executable(file) ? file : undefined) };
}

export const CURL = onPath('curl', 'apt-get install -y curl');
export const STRACE = onPath('strace', 'apt-get install -y strace');

/** True when the environment says this is a CI run (`CI=true`, as most CI systems set, or `CI=1`). */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CI === '1';
}

/**
 * A test about one backend itself (the SQLite file, its WAL, its locks): in a
 * run on the other backend (helpers/backend.ts) it is skipped, under CI too,
 * since nothing is missing there: it has nothing to test on that backend.
 */
export interface BackendOnly {
  backend: TestBackend;
  /** What the skip says. */
  reason: string;
}

export const SQLITE_BACKEND: BackendOnly = { backend: 'sqlite', reason: 'about the SQLite file' };

type Requirement = Program | BackendOnly;

function isBackendOnly(requirement: Requirement): requirement is BackendOnly {
  return 'backend' in requirement;
}

/**
 * node:test options: skip, saying why, when the run is on another backend
 * than one the test is about, or when a program is missing, saying what and
 * how to install it, unless this is CI (there it runs and fails).
 */
export function needs(...requirements: Requirement[]): { skip: string | false } {
  const otherBackend = requirements.filter(isBackendOnly).find((only) => only.backend !== testBackend());
  if (otherBackend) return { skip: `${otherBackend.reason}: runs on the ${otherBackend.backend} backend only` };
  const missing = requirements.filter((requirement): requirement is Program => !isBackendOnly(requirement) && requirement.find() === undefined);
  if (missing.length === 0 || inCi()) return { skip: false };
  return { skip: `needs ${missing.map((program) => `${program.name} (${program.install})`).join(' and ')}; under CI=true this fails instead` };
}
