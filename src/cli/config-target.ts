/**
 * The target of export, plan and apply: a server (--server URL with a secret
 * key from --key or PAYWALLD_KEY) or a database (--db FILE, which must exist,
 * or a postgres:// URL, and --project when it holds more than one project).
 */
import { cliChange } from '../audit/cli-change.ts';
import { databaseTarget, readEnv } from '../config.ts';
import type { ConfigBackend } from '../config-dir/backend.ts';
import { HttpBackend } from '../config-dir/http-backend.ts';
import { StoreBackend } from '../config-dir/store-backend.ts';
import { configurationServices } from '../context.ts';
import { describeTarget, redactUrl } from '../db/target.ts';
import { Logger } from '../log.ts';
import type { ProjectStore } from '../projects/store.ts';
import { openStorage } from '../storage/open.ts';
import { requireExistingDatabase, UsageError } from './command.ts';

export const TARGET_OPTIONS = {
  server: { type: 'string' },
  key: { type: 'string' },
  db: { type: 'string' },
  project: { type: 'string' },
} as const;

export const TARGET_HELP = `Target (one of):
  --server URL    a running server (env PAYWALLD_SERVER), with a secret key:
  --key KEY       the project's secret key; prefer the env PAYWALLD_KEY, which
                  other users of the machine cannot see in the process list
  --db FILE|URL   a database file, which must exist, or a postgres:// URL
                  (env PAYWALLD_DB, else DATABASE_URL); safe while servers
                  run on it, which serve the change within a second
  --project ID    with --db: the project (needed when the file holds several)`;

interface TargetFlags {
  server?: string;
  key?: string;
  db?: string;
  project?: string;
}

/** Where a target is, without its key: what a saved plan records so that `apply --plan FILE` needs no target flags. */
interface TargetSource {
  server?: string;
  db?: string;
  project?: string;
}

interface OpenTarget {
  backend: ConfigBackend;
  source: TargetSource;
  close(): Promise<void>;
}

async function projectOf(projects: ProjectStore, wanted: string | undefined, file: string): Promise<string> {
  const all = await projects.list();
  if (wanted !== undefined) {
    if (!all.some((p) => p.id === wanted)) throw new UsageError(`no project ${wanted} in ${file} (see: paywalld projects list)`);
    return wanted;
  }
  if (all.length === 1) return all[0]!.id;
  if (all.length === 0) throw new UsageError(`${file} has no project yet (paywalld projects create NAME)`);
  throw new UsageError(`${file} holds ${all.length} projects: name one with --project ID (see: paywalld projects list)`);
}

export async function openTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env): Promise<OpenTarget> {
  const server = flags.server ?? (env.PAYWALLD_SERVER || undefined);
  if (server !== undefined) {
    if (flags.db !== undefined) throw new UsageError('give --server or --db, not both');
    if (flags.project !== undefined) throw new UsageError('--project goes with --db; with --server the key names the project');
    const key = flags.key ?? (env.PAYWALLD_KEY || undefined);
    if (key === undefined) throw new UsageError("--server needs the project's secret key: set PAYWALLD_KEY (or pass --key)");
    return { backend: new HttpBackend(server, key), source: { server }, close: async () => {} };
  }
  if (flags.key !== undefined) throw new UsageError('--key goes with --server');
  const text = flags.db ?? readEnv(env).db;
  if (text === undefined) throw new UsageError('needs a target: --server URL (with PAYWALLD_KEY) or --db FILE|URL');
  if (text === ':memory:') throw new UsageError('--db :memory: is only for serve: a command of its own would see an empty database');
  const database = databaseTarget(text);
  if (database.kind === 'sqlite') requireExistingDatabase(database.file);
  const file = describeTarget(database);
  const storage = await openStorage(database);
  try {
    const services = await configurationServices(storage, new Logger('error'));
    const projectId = await projectOf(services.projects, flags.project, file);
    return {
      // Only apply writes through it: its changes are recorded as the CLI's.
      backend: new StoreBackend(storage, projectId, services, `${file} (project ${projectId})`, cliChange('apply')),
      // A saved plan records where it applies, never a password: PGPASSWORD gives it again.
      source: { db: database.kind === 'sqlite' ? database.file : redactUrl(database.url, ''), project: projectId },
      close: () => storage.close(),
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
