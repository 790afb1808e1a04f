/**
 * A real PostgreSQL for tests: Debian's `postgresql` package (which `.ci/run`
 * installs), one cluster per test process in a temporary directory on a free
 * loopback port, started on first use and shared by the tests of that
 * process; each test gets a database of its own (`postgresDatabase`).
 *
 * initdb and pg_ctl refuse to run as root, so as root they run as the
 * `postgres` user (`runuser`) on a directory that user owns; as anyone else
 * they run as that user. The socket lives in the temporary directory too.
 * A watchdog shell holds a pipe from this process: when the process ends, by
 * any means (a failed test, an uncaught error, SIGKILL), the pipe closes and
 * the watchdog stops the cluster and removes the directory.
 *
 * Tests that need it declare `needs(POSTGRES)`: skipped, saying why, where
 * PostgreSQL is not installed (`PAYWALLD_POSTGRES_BIN=/nonexistent` tries
 * that), failed under CI.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import postgres from 'postgres';
import { closePool, openPool, type Sql } from '../../src/db/postgres/connection.ts';
import type { Program } from './requirements.ts';

/** The newest installed major version's programs, or PAYWALLD_POSTGRES_BIN. */
function binDir(): string | undefined {
  if (process.env.PAYWALLD_POSTGRES_BIN !== undefined) return process.env.PAYWALLD_POSTGRES_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : path.join(root, newest, 'bin');
}

function program(name: string): string | undefined {
  const dir = binDir();
  if (dir === undefined) return undefined;
  const file = path.join(dir, name);
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}

export const POSTGRES: Program = {
  name: 'PostgreSQL (initdb and pg_ctl)',
  install: 'apt-get install -y postgresql, or PAYWALLD_POSTGRES_BIN=/usr/lib/postgresql/<version>/bin',
  find: () => (program('initdb') !== undefined && program('pg_ctl') !== undefined ? binDir() : undefined),
};

const asRoot = process.getuid?.() === 0;

/** The command line that runs a PostgreSQL program as the user owning the cluster. */
function command(name: string, args: string[]): string[] {
  const file = program(name);
  if (file === undefined) throw new Error(`PostgreSQL's ${name} is missing: ${POSTGRES.install} (.ci/run installs it)`);
  return asRoot ? ['runuser', '-u', 'postgres', '--', file, ...args] : [file, ...args];
}

function run(name: string, args: string[]): void {
  const [file, ...rest] = command(name, args);
  const result = spawnSync(file!, rest, { encoding: 'utf8', cwd: os.tmpdir() });
  if (result.status !== 0) throw new Error(`${name} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

type StopMode = 'smart' | 'fast' | 'immediate';

export class PostgresCluster {
  readonly host = '127.0.0.1';
  private readonly data: string;
  running = false;

  constructor(
    /** The temporary directory: data, socket and log. */
    readonly dir: string,
    readonly port: number,
  ) {
    this.data = path.join(dir, 'data');
  }

  /** A connection URL for `database` as the cluster's superuser (trust authentication on loopback). */
  url(database: string): string {
    return `postgres://postgres@${this.host}:${this.port}/${database}`;
  }

  /**
   * Starts the server and waits until it accepts connections. Durability
   * settings are off (fsync, full-page writes): a killed server still keeps
   * every commit, only a crash of the machine would lose them.
   */
  start(): void {
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    run('pg_ctl', ['start', '-D', this.data, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '60', '-o', options]);
    this.running = true;
  }

  /** Stops the server: `fast` ends sessions cleanly, `immediate` is as a crash (recovery on the next start). */
  stop(mode: StopMode = 'fast'): void {
    run('pg_ctl', ['stop', '-D', this.data, '-m', mode, '-w', '-t', '60']);
    this.running = false;
  }

  /** The server's log so far, for a failing test's message. */
  log(): string {
    return fs.readFileSync(path.join(this.dir, 'server.log'), 'utf8');
  }
}

/** A shell that waits for this process's end (its stdin closing), then stops the cluster and removes its directory. */
function watch(cluster: PostgresCluster): void {
  const stop = command('pg_ctl', ['stop', '-D', path.join(cluster.dir, 'data'), '-m', 'immediate', '-w']);
  const watchdog = spawn('sh', ['-c', 'read _; "$@" >/dev/null 2>&1; rm -rf "$0"', cluster.dir, ...stop], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watchdog.unref();
  (watchdog.stdin as net.Socket).unref();
}

/** A new temporary directory the cluster's user owns. */
function clusterDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (asRoot) {
    const { uid, gid } = postgresUser();
    fs.chownSync(dir, uid, gid);
  }
  return dir;
}

const INITDB_ARGS = ['-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'];

/**
 * A data directory initdb made, kept in the temporary directory for every
 * later test process of this PostgreSQL version to copy: initdb takes about
 * a second of CPU, a copy a fifth of one, and `npm run test:postgres` starts
 * a cluster in each of some 150 processes. Made beside its place and
 * renamed there, so a process sees a whole one or none; of two processes
 * making it at once, the second removes its own and copies the first's.
 */
function templateData(): string {
  const version = path.basename(path.dirname(binDir()!));
  const template = path.join(os.tmpdir(), `paywalld-pg-template-${version}-${asRoot ? 'postgres' : os.userInfo().uid}`);
  if (fs.existsSync(path.join(template, 'data', 'PG_VERSION'))) return path.join(template, 'data');
  const made = clusterDir('paywalld-pg-template-');
  run('initdb', ['-D', path.join(made, 'data'), ...INITDB_ARGS]);
  try {
    fs.renameSync(made, template);
  } catch {
    // Another process put one there first (a directory is not renamed onto one that holds files).
    fs.rmSync(made, { recursive: true, force: true });
  }
  return path.join(template, 'data');
}

async function startCluster(): Promise<PostgresCluster> {
  const dir = clusterDir('paywalld-pg-');
  // cp -a keeps the owner (the postgres user, as root) and the 0700 PostgreSQL insists on.
  const copied = spawnSync('cp', ['-a', templateData(), path.join(dir, 'data')], { encoding: 'utf8' });
  if (copied.status !== 0) throw new Error(`copying the template cluster failed: ${copied.stderr}`);
  // Another process may take the free port before the server binds it: then another one.
  for (let attempt = 1; ; attempt++) {
    const cluster = new PostgresCluster(dir, await freePort());
    try {
      cluster.start();
      watch(cluster);
      return cluster;
    } catch (error) {
      if (attempt === 3) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

let shared: Promise<PostgresCluster> | undefined;

/** This process's cluster, started on first use. */
export function postgresCluster(): Promise<PostgresCluster> {
  shared ??= startCluster();
  return shared;
}

/** Runs one statement on the cluster's maintenance database over a connection of its own. */
async function admin(cluster: PostgresCluster, statement: string): Promise<void> {
  const sql = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

let databases = 0;

export interface TestDatabase {
  cluster: PostgresCluster;
  name: string;
  url: string;
}

/** A fresh, empty database (a copy of template0), kept until the cluster goes with this process. */
export async function newPostgresDatabase(): Promise<TestDatabase> {
  const cluster = await postgresCluster();
  const name = `test_${process.pid}_${++databases}`;
  await admin(cluster, `CREATE DATABASE ${name} TEMPLATE template0`);
  return { cluster, name, url: cluster.url(name) };
}

/** A fresh, empty database for this test, dropped when the test ends if the cluster still runs. */
export async function postgresDatabase(t: TestContext): Promise<TestDatabase> {
  const database = await newPostgresDatabase();
  const { cluster, name } = database;
  t.after(async () => {
    if (cluster.running) await admin(cluster, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return database;
}

/** paywalld's own pool (src/db/postgres/connection.ts) on `url`, closed when the test ends. */
export function testPool(t: TestContext, url: string, size?: number): Sql {
  const sql = openPool(url, { size });
  t.after(() => closePool(sql));
  return sql;
}
