/**
 * Everything a running server shares, built once at start: the connection,
 * the cross-cutting pieces and every feature's service (routes → service →
 * store). src/app.ts hands each feature's routes the services they use,
 * never the whole context.
 */
import type { ServeConfig } from './config.ts';
import type { Database } from './db/database.ts';
import { EventService } from './events/service.ts';
import { PhaseStore } from './experiments/phases.ts';
import { ExperimentResults } from './experiments/service.ts';
import { Health } from './health/service.ts';
import { IdentityService } from './identity/service.ts';
import { SqliteIdentityStore as IdentityStore } from './identity/sqlite-store.ts';
import { IntegrationConfiguration } from './integrations/configuration.ts';
import { IntegrationService } from './integrations/service.ts';
import { SqliteIntegrationStore as IntegrationStore } from './integrations/sqlite-store.ts';
import { KeyRegistry } from './keys/registry.ts';
import { KeyService } from './keys/service.ts';
import { SqliteKeyStore as KeyStore } from './keys/sqlite-store.ts';
import type { Logger } from './log.ts';
import { MetricsRegistry } from './metrics/registry.ts';
import { PaywallDrafts } from './paywalls/draft/drafts.ts';
import { FallbackBundles } from './paywalls/fallback/cache.ts';
import { LivePaywalls } from './paywalls/live.ts';
import { PaywallManager } from './paywalls/management.ts';
import { ResolveExplainer } from './paywalls/resolve/explain.ts';
import { SqlitePaywallStore as PaywallStore } from './paywalls/sqlite-store.ts';
import { ProductManager } from './products/service.ts';
import { SqliteProductStore as ProductStore } from './products/sqlite-store.ts';
import { SqliteProjectStore as ProjectStore } from './projects/sqlite-store.ts';
import { PurchaseService } from './purchases/service.ts';
import { SqlitePurchaseStore as PurchaseStore } from './purchases/sqlite-store.ts';

export interface AppContext {
  readonly config: ServeConfig;
  readonly db: Database;
  readonly log: Logger;
  /** Prometheus metrics; services register theirs here. */
  readonly metrics: MetricsRegistry;
  /** True once a graceful shutdown began: /readyz answers 503 from then on. */
  readonly lifecycle: { draining: boolean };
  readonly projects: ProjectStore;
  /** Every active key in memory: the edge authenticates with it. */
  readonly auth: KeyRegistry;
  readonly keys: KeyService;
  /** The non-archived paywalls in memory, live revisions compiled: resolve and events read them without SQL. */
  readonly paywalls: LivePaywalls;
  /** GET /api/sdk/fallback's answers, kept per compiled paywall and per request. */
  readonly fallbackBundles: FallbackBundles;
  readonly paywallManager: PaywallManager;
  readonly drafts: PaywallDrafts;
  /** explain=1 on the resolve endpoint: off the hot path, it reads the live revision's document. */
  readonly explainer: ResolveExplainer;
  readonly products: ProductManager;
  readonly events: EventService;
  /** Experiment results: phases from the paywalls, counts from the event writer. */
  readonly experiments: ExperimentResults;
  readonly health: Health;
  /** One user across ids: identify's links, appAccountTokens. */
  readonly identity: IdentityService;
  /** Purchase records from the app's server and the store connectors. */
  readonly purchases: PurchaseService;
  /** Store connectors: configuration and the notifications at /hooks. */
  readonly integrations: IntegrationService;
}

interface ContextHooks {
  /** Run when another process (the CLI) commits configuration, so in-memory views reload. */
  externalChange: (() => void)[];
  /** Run at graceful shutdown after the server stopped accepting requests, before the database closes. */
  shutdown: (() => void | Promise<void>)[];
}

/** The configuration's services on one connection: the server's, and those of CLI commands that change a database file. */
interface ConfigurationServices {
  readonly projects: ProjectStore;
  readonly keyStore: KeyStore;
  readonly paywallStore: PaywallStore;
  readonly paywalls: LivePaywalls;
  readonly paywallManager: PaywallManager;
  /** Validate-only and preview of documents that are not stored (the dashboard's editor). */
  readonly drafts: PaywallDrafts;
  readonly products: ProductManager;
}

export function configurationServices(db: Database, log: Logger): ConfigurationServices {
  const keyStore = new KeyStore(db);
  const productStore = new ProductStore(db);
  const paywallStore = new PaywallStore(db);
  const paywalls = new LivePaywalls(paywallStore, productStore, log);
  return {
    projects: new ProjectStore(db, keyStore),
    keyStore,
    paywallStore,
    paywalls,
    paywallManager: new PaywallManager(paywallStore, productStore, paywalls, new PhaseStore(db)),
    drafts: new PaywallDrafts(productStore),
    products: new ProductManager(productStore, paywalls),
  };
}

export function createContext(config: ServeConfig, db: Database, log: Logger): { ctx: AppContext; hooks: ContextHooks } {
  const metrics = new MetricsRegistry();
  const lifecycle = { draining: false };
  const { projects, keyStore, paywallStore, paywalls, paywallManager, drafts, products } = configurationServices(db, log);
  const auth = new KeyRegistry(keyStore);
  metrics.gauge(
    'paywalld_key_registry_reloads_total',
    'Full reloads of the in-memory key registry: at start and after other processes changed the configuration.',
    () => auth.reloads,
    'counter',
  );
  metrics.gauge('paywalld_api_keys_active', 'Active API keys in memory, every project.', () => auth.size());
  metrics.gauge('paywalld_paywalls_compiled', 'Live paywall revisions compiled in memory for the resolve endpoint.', () => paywalls.compiledCount());
  const fallbackBundles = new FallbackBundles();
  metrics.gauge(
    'paywalld_fallback_entries_rendered_total',
    'Paywall entries of fallback bundles rendered (once per compiled live revision).',
    () => fallbackBundles.rendered,
    'counter',
  );
  metrics.gauge('paywalld_fallback_bundles_cached', 'Fallback bundle tags kept in memory, one per distinct request.', () => fallbackBundles.size());
  const events = new EventService({
    dbPath: config.dbPath,
    retentionDays: config.retentionDays,
    queueLimit: config.eventQueueLimit,
    queueBytes: config.eventQueueBytes,
    log,
    metrics,
    paywalls,
  });
  const hooks: ContextHooks = {
    externalChange: [() => auth.reload(), () => paywalls.reload()],
    // After the HTTP server stopped and drained: commits whatever is still queued, then the writer thread ends.
    shutdown: [() => events.close()],
  };
  const identity = new IdentityService(new IdentityStore(db));
  const purchases = new PurchaseService(new PurchaseStore(db), identity, metrics);
  const integrationStore = new IntegrationStore(db);
  const ctx: AppContext = {
    config,
    db,
    log,
    metrics,
    lifecycle,
    projects,
    auth,
    keys: new KeyService(keyStore, auth),
    paywalls,
    fallbackBundles,
    paywallManager,
    drafts,
    explainer: new ResolveExplainer(paywalls, paywallStore),
    products,
    events,
    experiments: new ExperimentResults(events, paywallManager),
    health: new Health(db, lifecycle, config.dbPath),
    identity,
    purchases,
    integrations: new IntegrationService(new IntegrationConfiguration(integrationStore), integrationStore, purchases, identity, metrics, log),
  };
  return { ctx, hooks };
}
