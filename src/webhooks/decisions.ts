/**
 * experiment.decision_changed: a decision lives in no table (results are
 * computed from the event writer's counts on demand), so its change is
 * noticed where it is computed. Each time results are computed with the
 * paywall's own settings, their decision is compared with the last one
 * stored for that phase and segment (OutboxStore.decided, which queues the
 * event in the transaction that stores the new status); and every 10
 * minutes the current phase of every live paywall, each segment, is
 * computed, so that a decision moves on nobody's request too.
 */
import type { Results } from '../experiments/schema.ts';
import type { Logger } from '../log.ts';
import type { OutboxStore } from './store.ts';

/** How often every live paywall's decisions are computed when nobody asks. */
const CHECK_EVERY_MS = 10 * 60_000;

export class DecisionWatch {
  constructor(
    private readonly outbox: Pick<OutboxStore, 'decided'>,
    private readonly log: Logger,
  ) {}

  /** Results just computed with the paywall's own settings: compared and stored apart from the request, which does not wait for it. */
  seen(projectId: string, paywallId: string, results: Results): void {
    const key = { projectId, paywallId, phase: results.phase.number, audience: results.audience };
    const { status, variant, guardrail, reason } = results.decision;
    this.outbox
      .decided(key, { status, variant, guardrail, reason }, Date.now())
      .catch((error: unknown) => this.log.warn('decision not compared', { paywall: paywallId, error: error instanceof Error ? error.message : String(error) }));
  }
}

/** What the periodic check computes: every project's live paywalls, their phases' audiences, their results. */
interface DecisionSources {
  projects(): Promise<{ id: string }[]>;
  liveIds(projectId: string): string[];
  /** The audiences of the paywall's current phase (its design's), besides the default split. */
  audiences(projectId: string, paywallId: string): Promise<string[]>;
  /** Computes the results (which DecisionWatch.seen compares): the current phase, one segment. */
  results(projectId: string, paywallId: string, audience: string | null): Promise<unknown>;
}

/** Computes every live paywall's decisions every 10 minutes; returns the stop. */
export function checkDecisionsPeriodically(sources: DecisionSources, log: Logger): () => void {
  let running = false;
  const check = async () => {
    for (const { id: projectId } of await sources.projects()) {
      for (const paywallId of sources.liveIds(projectId)) {
        for (const audience of [null, ...(await sources.audiences(projectId, paywallId))]) {
          // A phase with no events yet, or counts still warming up: nothing to compare, the next check tries again.
          await sources.results(projectId, paywallId, audience).catch(() => undefined);
        }
      }
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    check()
      .catch((error: unknown) => log.warn('decision check failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = false;
      });
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
