/**
 * Every setting of `paywalld serve`, described once: flag, environment
 * variable, kind, default and help. The CLI parser (SERVE_OPTIONS), the
 * environment reader (readEnv), the --help text and the table of docs/reference/configuration.md
 * (config-help.ts; the table is checked by test/config.unit.test.ts) are all
 * derived from SETTINGS. serveConfig() merges flags over the environment
 * over defaults and checks each value. Flags win over the environment.
 */
import { parseInterval } from './backup/schedule.ts';
import { ConfigError } from './config-error.ts';
import { PROTECTION_SETTINGS } from './config-protection.ts';
import { type DatabaseTarget, parseTarget, serveDatabaseOf } from './db/target.ts';
import { GOOGLE_SETTINGS, googleEndpoints } from './integrations/providers/google-endpoints.ts';
import { isLevel } from './log.ts';
import type { ServeConfig } from './serve-config.ts';
import { WEBHOOK_SETTINGS } from './webhooks/settings.ts';

export interface Setting {
  /** The variable that can set it instead of the flag. */
  env: string;
  /** A second variable, read when `env` is unset: one hosting platforms set (DATABASE_URL). */
  alsoEnv?: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'list' | 'duration' | 'level';
  /** The placeholder after the flag in the help text (`--port N`). */
  arg?: string;
  /** The default, written as a user would (parsed like their input); undefined: see `none`. */
  default?: string;
  /** What it means to leave it unset when there is no default. */
  none?: string;
  min?: number;
  max?: number;
  /** One paragraph; `code` spans become plain text in --help. */
  help: string;
}

export const SETTINGS = {
  port: {
    env: 'PAYWALLD_PORT',
    kind: 'integer',
    arg: 'N',
    default: '8787',
    min: 0,
    max: 65535,
    help: 'port to listen on; `0` picks a free one (the `listening` log line says which)',
  },
  host: { env: 'PAYWALLD_HOST', kind: 'string', arg: 'ADDR', default: '127.0.0.1', help: 'address to listen on; `0.0.0.0` listens on every interface' },
  db: {
    env: 'PAYWALLD_DB',
    alsoEnv: 'DATABASE_URL',
    kind: 'string',
    arg: 'FILE',
    default: 'data/paywalld.db',
    help: 'the SQLite database file; `:memory:` is a private temporary one, deleted when the server stops (docs/guide/paywalls-as-code.md, "CI mode"). A `postgres://` URL names PostgreSQL, for several servers (docs/operations/scale-out.md)',
  },
  seed: {
    env: 'PAYWALLD_SEED',
    kind: 'string',
    arg: 'DIR',
    none: 'none',
    help: 'apply a configuration directory (see `paywalld validate`) and publish it before the port opens',
  },
  'keys-file': {
    env: 'PAYWALLD_KEYS_FILE',
    kind: 'string',
    arg: 'FILE',
    none: 'none',
    help: 'write the keys of the project created at start to FILE as JSON, mode 0600, before the port opens, instead of printing them (a start on a database that has a project writes nothing)',
  },
  'log-level': { env: 'PAYWALLD_LOG_LEVEL', kind: 'level', arg: 'L', default: 'info', help: '`debug`, `info`, `warn` or `error`' },
  'require-key': { env: 'PAYWALLD_REQUIRE_KEY', kind: 'boolean', none: 'off', help: 'refuse event batches sent without an API key (401)' },
  'rate-limit-sdk': {
    env: 'PAYWALLD_RATE_LIMIT_SDK',
    kind: 'number',
    arg: 'N',
    default: '1000',
    min: 0,
    max: 1e9,
    help: 'requests/s per client IP on the SDK endpoints, bursts of twice that; `0` = off (docs/reference/limits.md)',
  },
  'rate-limit-api': {
    env: 'PAYWALLD_RATE_LIMIT_API',
    kind: 'number',
    arg: 'N',
    default: '20',
    min: 0,
    max: 1e9,
    help: 'requests/s per API key on the management API (per client IP without a valid key), bursts of twice that; `0` = off',
  },
  ...PROTECTION_SETTINGS,
  'trust-proxy': {
    env: 'PAYWALLD_TRUST_PROXY',
    kind: 'boolean',
    none: 'off',
    help: 'take the client IP from the last `X-Forwarded-For` entry (only behind a proxy that sets it)',
  },
  'cors-origin': {
    env: 'PAYWALLD_CORS_ORIGINS',
    kind: 'list',
    arg: 'ORIGIN',
    none: 'none',
    help: 'browser origins allowed on the management API (repeat the flag, or comma-separate in the variable; `*` = any); the SDK endpoints allow every origin',
  },
  'body-timeout': {
    env: 'PAYWALLD_BODY_TIMEOUT',
    kind: 'number',
    arg: 'S',
    default: '30',
    min: 1,
    max: 3600,
    help: 'seconds a request body may take to arrive before the server answers 408 and closes',
  },
  'retention-days': {
    env: 'PAYWALLD_RETENTION_DAYS',
    kind: 'integer',
    arg: 'N',
    none: 'keep all',
    min: 1,
    max: 36500,
    help: 'delete raw events received more than N days ago, in small background batches (daily statistics stay)',
  },
  'audit-retention-days': {
    env: 'PAYWALLD_AUDIT_RETENTION_DAYS',
    kind: 'integer',
    arg: 'N',
    none: 'keep all',
    min: 1,
    max: 36500,
    help: 'delete audit log entries older than N days, at start and daily (docs/guide/teams.md)',
  },
  'metrics-port': {
    env: 'PAYWALLD_METRICS_PORT',
    kind: 'integer',
    arg: 'N',
    none: 'none',
    min: 0,
    max: 65535,
    help: 'also serve `/metrics` without a key on 127.0.0.1:N, for a Prometheus on the same machine; on the main port it needs a secret key',
  },
  'request-log-rate': {
    env: 'PAYWALLD_REQUEST_LOG_RATE',
    kind: 'integer',
    arg: 'N',
    default: '1000',
    min: 0,
    max: 1e9,
    help: 'request log lines per second at most; the rest are counted in a `request log sampled` line (`0` = none); 5xx lines are always written',
  },
  'backup-dir': {
    env: 'PAYWALLD_BACKUP_DIR',
    kind: 'string',
    arg: 'DIR',
    none: 'none',
    help: 'write a consistent snapshot of the database into DIR every `--backup-every`, keeping the newest `--backup-keep`',
  },
  'backup-every': { env: 'PAYWALLD_BACKUP_EVERY', kind: 'duration', arg: 'T', default: '6h', help: 'interval of `--backup-dir` snapshots: `30m`, `6h`, `1d`' },
  'backup-keep': { env: 'PAYWALLD_BACKUP_KEEP', kind: 'integer', arg: 'N', default: '14', min: 1, max: 100_000, help: 'snapshots `--backup-dir` keeps' },
  ...GOOGLE_SETTINGS,
  ...WEBHOOK_SETTINGS,
} as const satisfies Record<string, Setting>;

export type Name = keyof typeof SETTINGS;
type OptionOf<S extends Setting> = S['kind'] extends 'boolean'
  ? { type: 'boolean' }
  : S['kind'] extends 'list'
    ? { type: 'string'; multiple: true }
    : { type: 'string' };

/** Every serve flag as node:util parseArgs wants it: derived from SETTINGS, so a documented flag cannot be missing from the parser. */
export const SERVE_OPTIONS = Object.fromEntries(
  Object.entries(SETTINGS).map(([name, setting]: [string, Setting]) => [
    name,
    setting.kind === 'boolean' ? { type: 'boolean' } : setting.kind === 'list' ? { type: 'string', multiple: true } : { type: 'string' },
  ]),
) as { [K in Name]: OptionOf<(typeof SETTINGS)[K]> };

type FlagValue<O> = O extends { type: 'boolean' } ? boolean : O extends { multiple: true } ? string[] : string;
type ServeFlags = { -readonly [K in Name]?: FlagValue<(typeof SERVE_OPTIONS)[K]> };
type EnvConfig = Partial<Record<Name, string>>;

export function readEnv(env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const out: EnvConfig = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [Name, Setting][]) {
    const value = [env[setting.env], setting.alsoEnv === undefined ? undefined : env[setting.alsoEnv]].find((text) => text !== undefined && text !== '');
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export type { ServeConfig } from './serve-config.ts';

/** The database a command works on: the flag, else PAYWALLD_DB, else DATABASE_URL, else the default file. */
export function databaseTarget(flag: string | undefined, env: EnvConfig = readEnv()): DatabaseTarget {
  return parseTarget(flag ?? env.db ?? SETTINGS.db.default);
}

/** The text of a setting: the flag, else the variable, else the default (undefined when there is none). */
function textOf(name: Name, flags: ServeFlags, env: EnvConfig): string | undefined {
  const flag = flags[name];
  if (typeof flag === 'string') return flag;
  const setting: Setting = SETTINGS[name];
  return env[name] ?? setting.default;
}

function numeric(name: Name, text: string): number {
  const setting: Setting = SETTINGS[name];
  const whole = setting.kind === 'integer';
  const { min = -Infinity, max = Infinity } = setting;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
    throw new ConfigError(`--${name} must be ${whole ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return value;
}

function optionalNumber(name: Name, flags: ServeFlags, env: EnvConfig): number | undefined {
  const text = textOf(name, flags, env);
  return text === undefined ? undefined : numeric(name, text);
}

function requiredNumber(name: Name, flags: ServeFlags, env: EnvConfig): number {
  return numeric(name, textOf(name, flags, env)!);
}

function boolean(name: Name, flags: ServeFlags, env: EnvConfig): boolean {
  const flag = flags[name];
  if (typeof flag === 'boolean') return flag;
  const text = env[name];
  if (text === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  throw new ConfigError(`${SETTINGS[name].env} must be true or false`);
}

function backups(flags: ServeFlags, env: EnvConfig): ServeConfig['backups'] {
  const dir = flags['backup-dir'] ?? env['backup-dir'];
  if (dir === undefined) {
    if ((flags['backup-every'] ?? env['backup-every'] ?? flags['backup-keep'] ?? env['backup-keep']) !== undefined) {
      throw new ConfigError('--backup-every and --backup-keep need --backup-dir');
    }
    return undefined;
  }
  const everyMs = parseInterval(textOf('backup-every', flags, env)!);
  if (everyMs === undefined) throw new ConfigError('--backup-every must be a duration such as 30m, 6h or 1d');
  return { dir, everyMs, keep: requiredNumber('backup-keep', flags, env) };
}

export function serveConfig(flags: ServeFlags, env: EnvConfig = readEnv()): ServeConfig {
  const logLevel = textOf('log-level', flags, env)!;
  if (!isLevel(logLevel)) throw new ConfigError('--log-level must be one of debug, info, warn, error');
  const origins = flags['cors-origin'] ?? env['cors-origin']?.split(',') ?? [];
  return {
    host: textOf('host', flags, env)!,
    port: requiredNumber('port', flags, env),
    database: serveDatabaseOf(databaseTarget(flags.db, env), flags['backup-dir'] ?? env['backup-dir']),
    logLevel,
    requestLogRate: requiredNumber('request-log-rate', flags, env),
    requireKey: boolean('require-key', flags, env),
    rateLimitSdk: requiredNumber('rate-limit-sdk', flags, env),
    rateLimitApi: requiredNumber('rate-limit-api', flags, env),
    rateLimitHooks: requiredNumber('rate-limit-hooks', flags, env),
    rateLimitHooksProject: requiredNumber('rate-limit-hooks-project', flags, env),
    trustProxy: boolean('trust-proxy', flags, env),
    corsOrigins: origins.map((o) => o.trim()).filter((o) => o !== ''),
    bodyTimeoutMs: requiredNumber('body-timeout', flags, env) * 1000,
    retentionDays: optionalNumber('retention-days', flags, env),
    eventQueueLimit: 100_000,
    eventQueueBytes: 16 * 1024 * 1024,
    metricsPort: optionalNumber('metrics-port', flags, env),
    backups: backups(flags, env),
    watchIntervalMs: 250,
    drainTimeoutMs: 10_000,
    seedDir: textOf('seed', flags, env),
    keysFile: textOf('keys-file', flags, env),
    secretsKeyFile: textOf('secrets-key-file', flags, env),
    google: googleEndpoints((name) => textOf(name, flags, env)!),
    auditRetentionDays: optionalNumber('audit-retention-days', flags, env),
    webhooks: { allowPrivate: boolean('webhooks-allow-private', flags, env), backoffScale: requiredNumber('webhooks-backoff-scale', flags, env) },
  };
}
