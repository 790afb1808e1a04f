/**
 * Everything a running server shares, built once at start and handed to each
 * feature's bindXxxApi. Features keep their own prepared statements; the
 * context only carries the connection and the cross-cutting pieces.
 */
import type { ServeConfig } from './config.ts';
import type { Database } from './db/database.ts';
import { KeyRegistry } from './keys/registry.ts';
import { KeyStore } from './keys/store.ts';
import type { Logger } from './log.ts';
import { MetricsRegistry } from './metrics/registry.ts';
import { LivePaywalls } from './paywalls/live.ts';
import { ProjectStore } from './projects/store.ts';

export interface AppContext {
  readonly config: ServeConfig;
  readonly db: Database;
  readonly log: Logger;
  readonly projects: ProjectStore;
  readonly keys: KeyStore;
  readonly auth: KeyRegistry;
  /** The non-archived paywalls in memory, live revisions compiled: resolve and events read them without SQL. */
  readonly paywalls: LivePaywalls;
  /** Prometheus metrics; features register theirs here. */
  readonly metrics: MetricsRegistry;
  /** True once a graceful shutdown began: /readyz answers 503 from then on. */
  readonly lifecycle: { draining: boolean };
  /** Run when another process (the CLI) commits to the database, so in-memory views can reload. */
  onExternalChange(listener: () => void): void;
  /** Run at graceful shutdown after the server stopped accepting requests, before the database closes. */
  onShutdown(listener: () => void | Promise<void>): void;
}

export interface ContextHooks {
  externalChange: (() => void)[];
  shutdown: (() => void | Promise<void>)[];
}

export function createContext(config: ServeConfig, db: Database, log: Logger): { ctx: AppContext; hooks: ContextHooks } {
  const hooks: ContextHooks = { externalChange: [], shutdown: [] };
  const keys = new KeyStore(db);
  const auth = new KeyRegistry(keys);
  hooks.externalChange.push(() => auth.reload());
  const paywalls = new LivePaywalls(db, log);
  hooks.externalChange.push(() => paywalls.reload());
  const ctx: AppContext = {
    config,
    db,
    log,
    projects: new ProjectStore(db),
    keys,
    auth,
    paywalls,
    metrics: new MetricsRegistry(),
    lifecycle: { draining: false },
    onExternalChange: (listener) => hooks.externalChange.push(listener),
    onShutdown: (listener) => hooks.shutdown.push(listener),
  };
  return { ctx, hooks };
}
