/**
 * What `paywalld serve` runs with, once config.ts has merged its flags over
 * the environment over the defaults and checked each value.
 */
import type { ProtectionConfig } from './config-protection.ts';
import type { DatabaseTarget } from './db/target.ts';
import type { GoogleEndpoints } from './integrations/providers/google-endpoints.ts';
import type { Level } from './log.ts';
import type { WebhookSettings } from './webhooks/settings.ts';

export interface ServeConfig extends ProtectionConfig {
  host: string;
  port: number;
  /** A SQLite file (`:memory:`: a temporary one), or a `postgres://` URL (never logged as such: describeTarget hides its password). */
  database: DatabaseTarget;
  logLevel: Level;
  /** Request log lines per second at most; past it lines are dropped and counted (5xx lines never are). */
  requestLogRate: number;
  /** Refuse event batches that carry no API key (401); without it a keyless event is attributed by its paywall id (docs/reference/events.md). */
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
  /** The same bound in bytes of event data (src/events/writer/writer.ts, rowBytes). */
  eventQueueBytes: number;
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
  /** Delete audit log entries older than this many days, daily; undefined keeps them all. */
  auditRetentionDays: number | undefined;
  /** Google's endpoints, for the Google Play connector. */
  google: GoogleEndpoints;
  /** Outgoing webhooks: private addresses, the retry schedule's scale. */
  webhooks: WebhookSettings;
}
