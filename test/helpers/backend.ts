/**
 * Which backend the test servers run on: the one switch of the test harness.
 * `PAYWALLD_TEST_BACKEND=postgres` (what `npm run test:postgres` sets) gives
 * every server `startTestServer` starts a fresh PostgreSQL database of this
 * process's cluster (helpers/postgres.ts); unset (or `sqlite`), a SQLite file
 * in a temporary directory. A test about SQLite itself declares
 * `needs(SQLITE_BACKEND)` (helpers/requirements.ts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newPostgresDatabase } from './postgres.ts';

export type TestBackend = 'sqlite' | 'postgres';

export const BACKEND_VARIABLE = 'PAYWALLD_TEST_BACKEND';

/** This process's backend, from the environment; a value other than the two is refused rather than taken for SQLite. */
export function testBackend(env: NodeJS.ProcessEnv = process.env): TestBackend {
  const value = env[BACKEND_VARIABLE];
  if (value === undefined || value === '' || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`${BACKEND_VARIABLE}=${value}: expected sqlite or postgres`);
}

export interface EmptyDatabase {
  backend: TestBackend;
  /** What `--db` takes: the SQLite file, or the PostgreSQL URL. */
  db: string;
  /** Removes it, once its first server has stopped. */
  remove(): void;
}

/**
 * A new, empty database of this process's backend. A PostgreSQL one is not
 * dropped by `remove`: a server restarted on it (serverOn) may stop after the
 * first one, and the cluster goes with the test process anyway.
 */
export async function emptyDatabase(): Promise<EmptyDatabase> {
  const backend = testBackend();
  if (backend === 'postgres') return { backend, db: (await newPostgresDatabase()).url, remove: () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-test-'));
  return { backend, db: path.join(dir, 'paywalld.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** This process's directory of key files (secretsKeyFileFor), removed when it exits, as its PostgreSQL cluster is. */
let keyFiles: string | undefined;

function keyFileDirectory(): string {
  if (keyFiles === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-test-secrets-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    keyFiles = dir;
  }
  return keyFiles;
}

/**
 * The key file connector secrets are sealed with on a PostgreSQL test
 * database (`--secrets-key-file`, which PostgreSQL needs): one per
 * database, so that every server on it, restarted or beside another,
 * reads the same key, as every instance must. On SQLite the server keeps
 * it beside the file. In a directory of the test process, which takes
 * them with it: a run of the PostgreSQL tier starts hundreds of databases.
 */
export function secretsKeyFileFor(db: string): string {
  return path.join(keyFileDirectory(), `${createHash('sha256').update(db).digest('hex').slice(0, 16)}.key`);
}
