import type { MetricsRegistry } from '../metrics/registry.ts';
import { REJECTION_CODES, type RejectionCode } from './schema.ts';
import type { EventWriter } from './writer/writer.ts';

export interface EventCounters {
  /** One transaction committed with this many rows. */
  transaction(rows: number): void;
  stored(n: number): void;
  duplicates(n: number): void;
  rejected(code: RejectionCode): void;
}

/** The events feature's series in /metrics; counting costs one addition per request, nothing per event. */
export function eventMetrics(registry: MetricsRegistry, writer: EventWriter): EventCounters {
  registry.gauge('paywalld_events_queued', 'Events accepted and waiting for their transaction to commit.', () => writer.queued);
  registry.gauge(
    'paywalld_event_transactions_total',
    'Event transactions committed (group commit: fewer than requests under load).',
    () => writer.transactions,
    'counter',
  );
  registry.gauge('paywalld_event_stats_ready', '1 once the statistics are loaded after the start (until then stats answer 503 stats_warming_up).', () =>
    writer.statsReady ? 1 : 0,
  );
  registry.gauge(
    'paywalld_events_leader',
    '1 while this instance holds the PostgreSQL lock of the background event work (retention, checkpoints); always 0 on SQLite.',
    () => (writer.leading ? 1 : 0),
  );
  registry.gauge('paywalld_events_retention_deleted_total', 'Raw events deleted by --retention-days.', () => writer.deletedByRetention, 'counter');
  const batchSizes = registry
    .histogram(
      'paywalld_event_transaction_rows',
      'Events per committed transaction: how much group commit gathers.',
      [1, 10, 100, 1_000, 5_000, 10_000, 20_000],
    )
    .labels();
  const stored = registry.counter('paywalld_events_stored_total', 'Events stored.').labels();
  const duplicates = registry.counter('paywalld_events_duplicates_total', 'Events not stored because their id was already stored for the project.').labels();
  const rejectedCounter = registry.counter('paywalld_events_rejected_total', 'Events rejected, by code.');
  const rejected = new Map(REJECTION_CODES.map((code) => [code, rejectedCounter.labels({ code })]));
  return {
    transaction: (rows) => batchSizes.observe(rows),
    stored: (n) => stored.inc(n),
    duplicates: (n) => duplicates.inc(n),
    rejected: (code) => rejected.get(code)!.inc(),
  };
}
