/**
 * Everything a running server shares, built once at start: the database's capabilities, the cross-cutting pieces and
 * every feature's service (routes → service → store). src/app.ts hands each feature's routes the services they use, never the whole context.
 */
import { Members } from './accounts/members.ts';
import { Sessions } from './accounts/sessions.ts';
import { cliChange } from './audit/cli-change.ts';
import { AuditLog } from './audit/service.ts';
import type { ServeConfig } from './config.ts';
import { EventNameService } from './events/names/service.ts';
import { EventService } from './events/service.ts';
import { ExperimentResults } from './experiments/service.ts';
import { Health } from './health/service.ts';
import { IdentityService } from './identity/service.ts';
import { IntegrationConfiguration } from './integrations/configuration.ts';
import { googleApis } from './integrations/providers/google-play-api.ts';
import { IntegrationService } from './integrations/service.ts';
import { KeyRegistry } from './keys/registry.ts';
import { KeyService } from './keys/service.ts';
import type { Logger } from './log.ts';
import { MetricsRegistry } from './metrics/registry.ts';
import { PaywallDrafts } from './paywalls/draft/drafts.ts';
import { FallbackBundles } from './paywalls/fallback/cache.ts';
import { LivePaywalls } from './paywalls/live.ts';
import { PaywallManager } from './paywalls/management.ts';
import { ResolveExplainer } from './paywalls/resolve/explain.ts';
import { PlacementAnswers } from './placements/answer/answers.ts';
import { PurchaseFactsFeed } from './placements/facts/feed.ts';
import { LivePlacements } from './placements/live.ts';
import { PlacementManager } from './placements/management.ts';
import { PlacementOpens } from './placements/opens.ts';
import { PlacementResults } from './placements/results.ts';
import { ProductManager } from './products/service.ts';
import type { ProjectStore } from './projects/store.ts';
import { PurchaseService } from './purchases/service.ts';
import { sealStoredSecrets } from './seal-stored-secrets.ts';
import { SecretBox } from './shared/secret-box.ts';
import type { ServerDatabase } from './storage/server-database.ts';
import type { Storage } from './storage/storage.ts';
import { webhookWork } from './webhooks/background.ts';
import { DecisionWatch } from './webhooks/decisions.ts';
import { WebhookService } from './webhooks/service.ts';

export interface AppContext {
  readonly config: ServeConfig;
  /** Every configuration store (storage/storage.ts). */
  readonly storage: Storage;
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
  /** The names events sent without a secret key brought, for owners to see and clear. */
  readonly eventNames: EventNameService;
  /** Signing in and out; the edge looks sessions up through it. */
  readonly sessions: Sessions;
  /** Projects' members, invitations, password resets. */
  readonly members: Members;
  readonly audit: AuditLog;
  /** Outgoing webhooks' endpoints and deliveries (the sender runs beside: hooks.start). */
  readonly webhooks: WebhookService;
  /** The placements not archived, compiled in memory: GET /api/sdk/placement reads them without SQL. */
  readonly placements: LivePlacements;
  readonly placementManager: PlacementManager;
  /** What the purchase records say of each user (purchases.*), in memory, read from the stores as they grow. */
  readonly facts: PurchaseFactsFeed;
  /** GET /api/sdk/placement's decisions, from memory. */
  readonly placementAnswers: PlacementAnswers;
  /** Shown against held out, from the event writer's counts. */
  readonly placementResults: PlacementResults;
}

interface ContextHooks {
  /** Run when another process (the CLI) commits configuration, so in-memory views reload. */
  externalChange: (() => void)[];
  /** Run at graceful shutdown after the server stopped accepting requests, before the database closes. */
  shutdown: (() => void | Promise<void>)[];
  /** Run once the server serves (after --seed): background work that must not share the start-up's transaction. */
  start: (() => Promise<void>)[];
}

/** The configuration's services on one storage: the server's, and those of CLI commands that change a database. */
interface ConfigurationServices {
  readonly projects: ProjectStore;
  readonly paywalls: LivePaywalls;
  readonly paywallManager: PaywallManager;
  /** Validate-only and preview of documents that are not stored (the dashboard's editor). */
  readonly drafts: PaywallDrafts;
  readonly products: ProductManager;
  readonly placements: LivePlacements;
  readonly placementManager: PlacementManager;
}

/** Builds the services and loads the live paywalls and placements. */
export async function configurationServices(storage: Storage, log: Logger): Promise<ConfigurationServices> {
  const paywalls = new LivePaywalls(storage.paywalls, storage.products, log);
  await paywalls.reload();
  const placements = new LivePlacements(storage.placements, log);
  await placements.reload();
  return {
    projects: storage.projects,
    paywalls,
    paywallManager: new PaywallManager(storage.paywalls, storage.products, paywalls, storage.phases),
    drafts: new PaywallDrafts(storage.products),
    products: new ProductManager(storage.products, paywalls),
    placements,
    placementManager: new PlacementManager(storage.placements, placements, paywalls),
  };
}

/** A reload after another process's change: a failure keeps the last state (served meanwhile) and is logged; the next change tries again. */
function reloadLogged(log: Logger, view: string, reload: () => Promise<void>): () => void {
  return () => {
    reload().catch((error: unknown) =>
      log.error('reload failed; serving the last state', { view, error: error instanceof Error ? error.message : String(error) }),
    );
  };
}

/** What the services ask of the server's database besides the stores: its capabilities, never a connection. */
type DatabaseAccess = Pick<ServerDatabase, 'storage' | 'probe' | 'target' | 'writerScript' | 'exportEvents' | 'shared' | 'secretsKeyFile' | 'truncateLog'>;

/** Builds every service and loads the in-memory views (keys, live paywalls): the server may listen once this resolves. */
export async function createContext(
  config: ServeConfig,
  { storage, probe, target, writerScript, exportEvents, shared, secretsKeyFile, truncateLog }: DatabaseAccess,
  log: Logger,
): Promise<{ ctx: AppContext; hooks: ContextHooks }> {
  const metrics = new MetricsRegistry();
  const lifecycle = { draining: false };
  const { projects, paywalls, paywallManager, drafts, products, placements, placementManager } = await configurationServices(storage, log);
  const auth = new KeyRegistry(storage.keys, log);
  await auth.reload();
  metrics.gauge(
    'paywalld_key_registry_reloads_total',
    'Full reloads of the in-memory key registry: at start and after other processes changed the configuration.',
    () => auth.reloads,
    'counter',
  );
  metrics.gauge('paywalld_api_keys_active', 'Active API keys in memory, every project.', () => auth.size());
  metrics.gauge('paywalld_paywalls_compiled', 'Live paywall revisions compiled in memory for the resolve endpoint.', () => paywalls.compiledCount());
  metrics.gauge('paywalld_placements_compiled', 'Placements compiled in memory for the placement endpoint.', () => placements.count());
  const fallbackBundles = new FallbackBundles();
  metrics.gauge(
    'paywalld_fallback_entries_rendered_total',
    'Paywall entries of fallback bundles rendered (once per compiled live revision).',
    () => fallbackBundles.rendered,
    'counter',
  );
  metrics.gauge('paywalld_fallback_bundles_cached', 'Fallback bundle tags kept in memory, one per distinct request.', () => fallbackBundles.size());
  // What frequency caps count: told by the event writer thread, which counts every instance's events.
  const opens = new PlacementOpens();
  const events = new EventService({
    target,
    writerScript,
    exportEvents,
    retentionDays: config.retentionDays,
    queueLimit: config.eventQueueLimit,
    queueBytes: config.eventQueueBytes,
    log,
    metrics,
    paywalls,
    placements,
    onPlacementOpens: (full, news) => opens.take(full, news),
  });
  const hooks: ContextHooks = {
    externalChange: [
      reloadLogged(log, 'keys', () => auth.reload()),
      reloadLogged(log, 'paywalls', () => paywalls.reload()),
      reloadLogged(log, 'placements', () => placements.reload()),
    ],
    // After the HTTP server stopped and drained: commits whatever is still queued, then the writer thread ends.
    shutdown: [() => events.close()],
    start: [],
  };
  const sessions = new Sessions(storage.accounts, storage.sessions);
  const audit = new AuditLog(storage.audit);
  // Expired sessions and old sign-in failures are refused anyway; deleting them keeps the tables small.
  const pruneSessions = setInterval(
    () => sessions.prune().catch((error: unknown) => log.warn('pruning sessions failed', { error: String(error) })),
    60 * 60 * 1000,
  );
  pruneSessions.unref();
  hooks.shutdown.push(() => clearInterval(pruneSessions));
  if (config.auditRetentionDays !== undefined) hooks.shutdown.push(audit.keepFor(config.auditRetentionDays, log));
  const facts = new PurchaseFactsFeed(storage, log);
  // Before the server listens: an audience on purchases.* answers from every record stored so far.
  await facts.read();
  hooks.shutdown.push(facts.follow(config.watchIntervalMs));
  metrics.gauge('paywalld_purchase_facts_users', 'User ids whose purchases.* facts are kept in memory (linked ids included), every project.', () =>
    facts.users(),
  );
  const identity = new IdentityService(storage.identity, events);
  // A purchase recorded through this instance is in its facts when the request is answered (other instances: the next read).
  const purchases = new PurchaseService(storage.purchases, metrics, log, () =>
    facts.read().catch((error: unknown) => log.warn('reading new purchase records into the purchases.* facts failed', { error: String(error) })),
  );
  const secrets = new SecretBox(config.secretsKeyFile ?? secretsKeyFile);
  const integrations = new IntegrationConfiguration(storage.integrations, secrets);
  const webhookService = new WebhookService(storage.webhooks, config.webhooks.allowPrivate, secrets);
  await sealStoredSecrets(
    { 'connector configurations': () => integrations.sealStored(cliChange('serve')), 'webhook secrets': () => webhookService.sealStored() },
    truncateLog,
    log,
  );
  const decisions = new DecisionWatch(storage.outbox, log);
  const experiments = new ExperimentResults(events, paywallManager, (projectId, paywallId, results) => decisions.seen(projectId, paywallId, results));
  const webhooks = webhookWork(
    storage.outbox,
    config.webhooks,
    metrics,
    log,
    !shared,
    {
      projects,
      paywalls,
      phases: paywallManager,
      results: (projectId, paywallId, audience) => experiments.results(projectId, paywallId, undefined, audience),
    },
    secrets,
  );
  hooks.start.push(() => webhooks.start());
  hooks.shutdown.push(() => webhooks.stop());
  const ctx: AppContext = {
    config,
    storage,
    log,
    metrics,
    lifecycle,
    projects,
    auth,
    keys: new KeyService(storage.keys, auth),
    paywalls,
    fallbackBundles,
    paywallManager,
    drafts,
    explainer: new ResolveExplainer(paywalls, storage.paywalls),
    products,
    events,
    experiments,
    health: new Health(probe, lifecycle),
    identity,
    purchases,
    integrations: new IntegrationService(integrations, storage.integrations, purchases, identity, metrics, log, googleApis(config.google)),
    eventNames: new EventNameService(storage.eventNames),
    sessions,
    members: new Members(storage.accounts),
    audit,
    webhooks: webhookService,
    placements,
    placementManager,
    facts,
    placementAnswers: new PlacementAnswers(placements, paywalls, facts, opens),
    placementResults: new PlacementResults(events, placementManager),
  };
  return { ctx, hooks };
}
