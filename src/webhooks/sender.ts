/**
 * The sender: takes due deliveries from the outbox and sends them, apart
 * from any request (a slow receiver delays nobody's API call). It leases
 * what it claims (store.ts, OutboxStore.claim), so that on PostgreSQL each
 * delivery is sent by one instance at a time, and records each attempt's
 * outcome: succeeded on a 2xx, else the next attempt by the schedule
 * (schedule.ts) or, past its 24 hours, failed. A delivery is settled only
 * after its attempt, so one a killed process was sending is sent again
 * once its lease expires (at least once, never lost).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { attempt } from './attempt.ts';
import { nextAttemptAt } from './schedule.ts';
import { openSecret } from './secrets.ts';
import type { WebhookSettings } from './settings.ts';
import type { ClaimedDelivery, OutboxStore } from './store.ts';

/** Deliveries in flight at once, per process. */
const MAX_IN_FLIGHT = 16;
/** A lease outlasts an attempt (10 s) with room to record it; a sender that died holding one leaves its deliveries for this long. */
const LEASE_MS = 30_000;
/** How often the outbox is looked at when nothing announced a delivery: changes made by another process (the CLI on SQLite). */
const IDLE_POLL_MS = 1000;

export class WebhookSender {
  /** This process's name on its leases. */
  private readonly owner = randomUUID();
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  /** The look at the outbox under way, which stop() lets finish (it may be claiming). */
  private tickRun: Promise<void> | undefined;
  private again = false;
  private running = false;
  private stopWatching: (() => Promise<void>) | undefined;
  private pendingCount = 0;
  private oldestPending: number | undefined;
  private readonly attempts;
  private readonly deliveries;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly settings: WebhookSettings,
    metrics: MetricsRegistry,
    private readonly log: Logger,
    private readonly secrets: SecretBox,
  ) {
    const attempts = metrics.counter(
      'paywalld_webhook_attempts_total',
      'Webhook delivery attempts by this process, by outcome (succeeded: a 2xx; failed: anything else).',
    );
    this.attempts = { succeeded: attempts.labels({ outcome: 'succeeded' }), failed: attempts.labels({ outcome: 'failed' }) };
    const deliveries = metrics.counter(
      'paywalld_webhook_deliveries_total',
      'Webhook deliveries settled by this process: sent (a 2xx), or failed (no 2xx within the 24 hours of retries).',
    );
    this.deliveries = { sent: deliveries.labels({ outcome: 'sent' }), failed: deliveries.labels({ outcome: 'failed' }) };
    metrics.gauge('paywalld_webhook_deliveries_pending', 'Webhook deliveries waiting to be sent or retried, every project.', () => this.pendingCount);
    metrics.gauge('paywalld_webhook_pending_age_seconds', 'Age of the oldest webhook delivery still pending; 0 when none is.', () =>
      this.oldestPending === undefined ? 0 : Math.max(0, (Date.now() - this.oldestPending) / 1000),
    );
  }

  /** Starts sending. `alone`: no other process sends from this database (SQLite), so any lease left is a killed process's, free at once. */
  async start(alone: boolean): Promise<void> {
    // Never fails the server's start: without the release or the announcements, leases expire and the outbox is polled.
    const warn = (what: string) => (error: unknown) => this.log.warn(what, { error: error instanceof Error ? error.message : String(error) });
    if (alone) await this.outbox.release(undefined).catch(warn('webhook leases of the last run not released'));
    this.stopWatching = (await this.outbox.watch(() => this.wake()).catch(warn('new webhook deliveries are not announced: the outbox is polled'))) ?? undefined;
    this.running = true;
    this.wake();
  }

  /** Stops: attempts in flight are abandoned and their leases released uncounted, so that the next sender tries them at once. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.stopWatching?.();
    // What it claimed after this is not launched (launch()); release() below frees it.
    await this.tickRun;
    for (const { controller } of this.inFlight.values()) controller.abort();
    await Promise.all([...this.inFlight.values()].map(({ done }) => done));
    await this.outbox.release(this.owner).catch((error: unknown) => this.log.warn('webhook leases not released', { error: String(error) }));
  }

  private wake(): void {
    if (!this.running) return;
    if (this.ticking) this.again = true;
    else this.tickRun = this.tick();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.running) this.timer = setTimeout(() => this.wake(), Math.max(0, Math.min(ms, IDLE_POLL_MS)));
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    try {
      do {
        this.again = false;
        // A read first: an idle outbox costs no write transaction.
        const pending = await this.outbox.pending();
        this.pendingCount = pending?.count ?? 0;
        this.oldestPending = pending?.oldest;
        const room = MAX_IN_FLIGHT - this.inFlight.size;
        // Due deliveries this process cannot claim are leased (here, in flight, or to another instance): a settled attempt wakes it.
        let wait = IDLE_POLL_MS;
        if (pending && pending.nextDue > Date.now()) wait = pending.nextDue - Date.now();
        else if (pending && room > 0 && this.running) {
          const claimed = await this.outbox.claim(this.owner, Date.now(), LEASE_MS, room);
          for (const delivery of claimed) this.launch(delivery);
          // As many as there was room for: more may be due.
          if (claimed.length === room) this.again = true;
        }
        this.schedule(wait);
      } while (this.again && this.running);
    } catch (error) {
      this.log.warn('webhook sender: the outbox could not be read; trying again', { error: error instanceof Error ? error.message : String(error) });
      this.schedule(IDLE_POLL_MS);
    } finally {
      this.ticking = false;
    }
  }

  private launch(delivery: ClaimedDelivery): void {
    if (!this.running) return;
    const controller = new AbortController();
    const done = this.deliver(delivery, controller.signal)
      .catch((error: unknown) => this.log.warn('webhook attempt not recorded', { delivery: delivery.id, error: String(error) }))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, { controller, done });
  }

  /** An attempt with the endpoint's secret opened (secrets.ts); one that cannot be opened (no key file, another key) fails the attempt, retried. */
  private async attempt(delivery: ClaimedDelivery, signal: AbortSignal): ReturnType<typeof attempt> {
    let secret: string;
    try {
      secret = openSecret(this.secrets, delivery.project_id, delivery.webhook_id, delivery.secret);
    } catch (error) {
      return { status: null, body: null, error: (error as Error).message };
    }
    return attempt({ ...delivery, secret }, this.settings.allowPrivate, signal);
  }

  private async deliver(delivery: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const result = await this.attempt(delivery, signal);
    // Stopping: the lease is released uncounted (stop()).
    if (signal.aborted) return;
    const now = Date.now();
    const succeeded = result.error === null && result.status !== null && result.status >= 200 && result.status < 300;
    const next = succeeded ? undefined : nextAttemptAt(delivery.attempts + 1, delivery.window_start, now, this.settings.backoffScale);
    const status = succeeded ? 'succeeded' : next === undefined ? 'failed' : 'pending';
    const kept = await this.outbox.settle(delivery.id, this.owner, {
      at: now,
      status,
      nextAttemptAt: next ?? null,
      responseStatus: result.status,
      responseBody: result.body,
      error: result.error,
    });
    (succeeded ? this.attempts.succeeded : this.attempts.failed).inc();
    if (!kept) return;
    if (status === 'succeeded') this.deliveries.sent.inc();
    if (status === 'failed') {
      this.deliveries.failed.inc();
      this.log.warn('webhook delivery failed: no 2xx within the retry window', {
        delivery: delivery.id,
        webhook: delivery.webhook_id,
        project: delivery.project_id,
      });
    }
  }
}
