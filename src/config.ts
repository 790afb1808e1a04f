/**
 * Configuration is read in two steps: readEnv() collects the PAYWALLD_*
 * variables as strings, then serveConfig() merges them under command-line
 * flags, applies defaults and checks types. Flags win over the environment.
 */
import { parseInterval } from './backup/schedule.ts';
import { isLevel, type Level } from './log.ts';

export const DEFAULT_DB = 'data/paywalld.db';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;

/** Each serve flag that can also come from the environment, with its variable. */
const ENV_NAMES = {
  port: 'PAYWALLD_PORT',
  host: 'PAYWALLD_HOST',
  db: 'PAYWALLD_DB',
  'log-level': 'PAYWALLD_LOG_LEVEL',
  'rate-limit-sdk': 'PAYWALLD_RATE_LIMIT_SDK',
  'rate-limit-api': 'PAYWALLD_RATE_LIMIT_API',
  'cors-origin': 'PAYWALLD_CORS_ORIGINS',
  'body-timeout': 'PAYWALLD_BODY_TIMEOUT',
  'trust-proxy': 'PAYWALLD_TRUST_PROXY',
  'retention-days': 'PAYWALLD_RETENTION_DAYS',
  'metrics-port': 'PAYWALLD_METRICS_PORT',
  'request-log-rate': 'PAYWALLD_REQUEST_LOG_RATE',
  'backup-dir': 'PAYWALLD_BACKUP_DIR',
  'backup-every': 'PAYWALLD_BACKUP_EVERY',
  'backup-keep': 'PAYWALLD_BACKUP_KEEP',
  seed: 'PAYWALLD_SEED',
  'keys-file': 'PAYWALLD_KEYS_FILE',
} as const;

export type EnvConfig = Partial<Record<keyof typeof ENV_NAMES, string>>;

export function readEnv(env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const out: EnvConfig = {};
  for (const [flag, name] of Object.entries(ENV_NAMES) as [keyof typeof ENV_NAMES, string][]) {
    if (env[name] !== undefined && env[name] !== '') out[flag] = env[name];
  }
  return out;
}

export interface ServeConfig {
  host: string;
  port: number;
  dbPath: string;
  logLevel: Level;
  /** Request log lines per second at most; past it lines are dropped and counted (5xx lines never are). */
  requestLogRate: number;
  /** Refuse event batches that carry no API key (see PRODUCT.md, "Sending events"). */
  requireKey: boolean;
  /** Requests per second per client IP on the SDK endpoints (burst: twice that); 0 turns the limit off. */
  rateLimitSdk: number;
  /** Requests per second per API key on the management API (burst: twice that); 0 turns the limit off. */
  rateLimitApi: number;
  /** Read the client IP from X-Forwarded-For (only behind a reverse proxy that sets it). */
  trustProxy: boolean;
  /** Browser origins allowed on the management API; the SDK endpoints allow every origin. */
  corsOrigins: string[];
  /** A request body still incomplete after this long is cut off (408). */
  bodyTimeoutMs: number;
  /** Delete raw events received more than this many days ago (daily statistics stay); undefined keeps them all. */
  retentionDays: number | undefined;
  /** Events accepted but not yet committed, at most; past it event batches are answered 503 with Retry-After. */
  eventQueueLimit: number;
  /** Serve /metrics without a key on 127.0.0.1 at this port; undefined: only on the main port, with a secret key. */
  metricsPort: number | undefined;
  /** Scheduled snapshots into a folder; undefined: none (paywalld backup still works). */
  backups: { dir: string; everyMs: number; keep: number } | undefined;
  /** How often the server looks for commits made by other processes (the CLI). */
  watchIntervalMs: number;
  /** How long a graceful shutdown waits for in-flight requests. */
  drainTimeoutMs: number;
  /** A configuration directory applied and published before the port opens (CI mode). */
  seedDir: string | undefined;
  /** Where the keys of the project created at start are written (mode 0600) before the port opens. */
  keysFile: string | undefined;
}

/**
 * Every serve flag with its type, for node:util parseArgs: the one list the
 * CLI parses and ServeFlags is derived from, so a documented flag cannot be
 * missing from the parser.
 */
export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  'log-level': { type: 'string' },
  'require-key': { type: 'boolean' },
  'rate-limit-sdk': { type: 'string' },
  'rate-limit-api': { type: 'string' },
  'trust-proxy': { type: 'boolean' },
  'cors-origin': { type: 'string', multiple: true },
  'body-timeout': { type: 'string' },
  'retention-days': { type: 'string' },
  'metrics-port': { type: 'string' },
  'request-log-rate': { type: 'string' },
  'backup-dir': { type: 'string' },
  'backup-every': { type: 'string' },
  'backup-keep': { type: 'string' },
  seed: { type: 'string' },
  'keys-file': { type: 'string' },
} as const;

type FlagValue<O> = O extends { type: 'boolean' } ? boolean : O extends { multiple: true } ? string[] : string;
export type ServeFlags = { -readonly [K in keyof typeof SERVE_OPTIONS]?: FlagValue<(typeof SERVE_OPTIONS)[K]> };

export class ConfigError extends Error {}

export function dbPath(flag: string | undefined, env: EnvConfig = readEnv()): string {
  return flag ?? env.db ?? DEFAULT_DB;
}

function number(name: string, text: string | undefined, fallback: number, min: number, max: number, whole = false): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
    throw new ConfigError(`--${name} must be ${whole ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return value;
}

function backups(flags: ServeFlags, env: EnvConfig): ServeConfig['backups'] {
  const dir = flags['backup-dir'] ?? env['backup-dir'];
  const every = flags['backup-every'] ?? env['backup-every'];
  const keep = flags['backup-keep'] ?? env['backup-keep'];
  if (dir === undefined) {
    if (every !== undefined || keep !== undefined) throw new ConfigError('--backup-every and --backup-keep need --backup-dir');
    return undefined;
  }
  const everyMs = parseInterval(every ?? '6h');
  if (everyMs === undefined) throw new ConfigError('--backup-every must be a duration such as 30m, 6h or 1d');
  return { dir, everyMs, keep: number('backup-keep', keep, 14, 1, 100_000, true) };
}

function optionalPort(text: string | undefined): number | undefined {
  return text === undefined ? undefined : number('metrics-port', text, 0, 0, 65535, true);
}

function boolean(name: string, flag: boolean | undefined, text: string | undefined): boolean {
  if (flag !== undefined) return flag;
  if (text === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  throw new ConfigError(`${ENV_NAMES[name as keyof typeof ENV_NAMES]} must be true or false`);
}

export function serveConfig(flags: ServeFlags, env: EnvConfig = readEnv()): ServeConfig {
  const logLevel = flags['log-level'] ?? env['log-level'] ?? 'info';
  if (!isLevel(logLevel)) throw new ConfigError('--log-level must be one of debug, info, warn, error');
  const origins = flags['cors-origin'] ?? env['cors-origin']?.split(',') ?? [];
  const retentionText = flags['retention-days'] ?? env['retention-days'];
  return {
    host: flags.host ?? env.host ?? DEFAULT_HOST,
    port: number('port', flags.port ?? env.port, DEFAULT_PORT, 0, 65535, true),
    dbPath: dbPath(flags.db, env),
    logLevel,
    requestLogRate: number('request-log-rate', flags['request-log-rate'] ?? env['request-log-rate'], 1000, 0, 1e9, true),
    requireKey: flags['require-key'] ?? false,
    rateLimitSdk: number('rate-limit-sdk', flags['rate-limit-sdk'] ?? env['rate-limit-sdk'], 100, 0, 1e9),
    rateLimitApi: number('rate-limit-api', flags['rate-limit-api'] ?? env['rate-limit-api'], 20, 0, 1e9),
    trustProxy: boolean('trust-proxy', flags['trust-proxy'], env['trust-proxy']),
    corsOrigins: origins.map((o) => o.trim()).filter((o) => o !== ''),
    bodyTimeoutMs: number('body-timeout', flags['body-timeout'] ?? env['body-timeout'], 30, 1, 3600) * 1000,
    retentionDays: retentionText === undefined ? undefined : number('retention-days', retentionText, 0, 1, 36500, true),
    eventQueueLimit: 100_000,
    metricsPort: optionalPort(flags['metrics-port'] ?? env['metrics-port']),
    backups: backups(flags, env),
    watchIntervalMs: 250,
    drainTimeoutMs: 10_000,
    seedDir: flags.seed ?? env.seed,
    keysFile: flags['keys-file'] ?? env['keys-file'],
  };
}
