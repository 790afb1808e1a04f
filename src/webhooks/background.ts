/**
 * What a server runs for webhooks beside its requests: the sender, and the
 * periodic check of experiment decisions. Started once the server serves
 * (after `--seed`, whose changes share the SQLite connection in one
 * transaction), stopped at shutdown before the database closes.
 */
import type { PhaseDesign, PhaseRow } from '../experiments/phases.ts';
import type { Logger } from '../log.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { checkDecisionsPeriodically } from './decisions.ts';
import { WebhookSender } from './sender.ts';
import type { WebhookSettings } from './settings.ts';
import type { OutboxStore } from './store.ts';

interface Sources {
  projects: { list(): Promise<{ id: string }[]> };
  paywalls: { liveIds(projectId: string): string[] };
  phases: { phases(projectId: string, paywallId: string): Promise<PhaseRow[]> };
  /** The current phase's results of one segment, computed (and their decision compared) as the API computes them. */
  results(projectId: string, paywallId: string, audience: string | null): Promise<unknown>;
}

interface WebhookWork {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How long settled deliveries stay listed; older ones are deleted, hourly. */
const KEEP_SETTLED_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

/** `alone`: the server is the only process that sends from its database (SQLite's, which one server owns). */
export function webhookWork(
  outbox: OutboxStore,
  settings: WebhookSettings,
  metrics: MetricsRegistry,
  log: Logger,
  alone: boolean,
  sources: Sources,
  secrets: SecretBox,
): WebhookWork {
  const sender = new WebhookSender(outbox, settings, metrics, log, secrets);
  let stopChecks: (() => void) | undefined;
  let pruning: NodeJS.Timeout | undefined;
  let pruned: Promise<unknown> = Promise.resolve();
  const prune = () => {
    pruned = outbox.prune(Date.now() - KEEP_SETTLED_MS).catch((error: unknown) => log.warn('pruning webhook deliveries failed', { error: String(error) }));
  };
  return {
    async start() {
      await sender.start(alone);
      prune();
      pruning = setInterval(prune, PRUNE_EVERY_MS);
      pruning.unref();
      stopChecks = checkDecisionsPeriodically(
        {
          projects: () => sources.projects.list(),
          liveIds: (projectId) => sources.paywalls.liveIds(projectId),
          audiences: async (projectId, paywallId) => {
            const current = (await sources.phases.phases(projectId, paywallId)).at(-1);
            return current ? (JSON.parse(current.design) as PhaseDesign).audiences.map((audience) => audience.id) : [];
          },
          results: sources.results,
        },
        log,
      );
    },
    async stop() {
      stopChecks?.();
      clearInterval(pruning);
      await pruned;
      await sender.stop();
    },
  };
}
