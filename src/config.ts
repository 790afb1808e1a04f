/**
 * Configuration is read in two steps: readEnv() collects the PAYWALLD_*
 * variables as strings, then serveConfig() merges them under command-line
 * flags, applies defaults and checks types. Flags win over the environment.
 */
import { isLevel, type Level } from './log.ts';

export const DEFAULT_DB = 'data/paywalld.db';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;

export interface EnvConfig {
  port?: string;
  host?: string;
  db?: string;
  logLevel?: string;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): EnvConfig {
  return { port: env.PAYWALLD_PORT, host: env.PAYWALLD_HOST, db: env.PAYWALLD_DB, logLevel: env.PAYWALLD_LOG_LEVEL };
}

export interface ServeConfig {
  host: string;
  port: number;
  dbPath: string;
  logLevel: Level;
  /** Refuse event batches that carry no API key (see PRODUCT.md, "Sending events"). */
  requireKey: boolean;
  /** How often the server looks for commits made by other processes (the CLI). */
  watchIntervalMs: number;
  /** How long a graceful shutdown waits for in-flight requests. */
  drainTimeoutMs: number;
}

export interface ServeFlags {
  port?: string;
  host?: string;
  db?: string;
  'log-level'?: string;
  'require-key'?: boolean;
}

export class ConfigError extends Error {}

export function dbPath(flag: string | undefined, env: EnvConfig = readEnv()): string {
  return flag ?? env.db ?? DEFAULT_DB;
}

export function serveConfig(flags: ServeFlags, env: EnvConfig = readEnv()): ServeConfig {
  const portText = flags.port ?? env.port;
  const port = portText === undefined ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('--port must be an integer from 0 to 65535');
  const logLevel = flags['log-level'] ?? env.logLevel ?? 'info';
  if (!isLevel(logLevel)) throw new ConfigError('--log-level must be one of debug, info, warn, error');
  return {
    host: flags.host ?? env.host ?? DEFAULT_HOST,
    port,
    dbPath: dbPath(flags.db, env),
    logLevel,
    requireKey: flags['require-key'] ?? false,
    watchIntervalMs: 250,
    drainTimeoutMs: 10_000,
  };
}
