import type { FoldQuery, FoldResult } from '../analytics/fold/fold-types.ts';
import { LIMIT_MESSAGES, PUBLIC_LIMIT_MESSAGES } from '../analytics/limits.ts';
import type { PlacementOpen } from '../analytics/placement-opens.ts';
import type { DatabaseTarget } from '../db/target.ts';
import type { LinkOutcome, LinkRequest } from '../identity/store.ts';
import type { Logger } from '../log.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { DomainError } from '../shared/errors.ts';
import type { EventExport } from './export-line.ts';
import { type Envelope, type PaywallDirectory, type PlacementDirectory, prepareBatch } from './ingest.ts';
import { type EventCounters, eventMetrics } from './metrics.ts';
import type { IngestResult, Stats } from './schema.ts';
import { dayOf, dayText, FIRST_PRINTABLE_DAY, LAST_PRINTABLE_DAY } from './time.ts';
import type { WriterScript } from './writer/protocol.ts';
import { EventWriter } from './writer/writer.ts';

/** Statistics cover at most this many days per request. */
const MAX_STATS_DAYS = 366;
/** Statistics default to the 30 days ending today. */
const DEFAULT_STATS_DAYS = 30;

interface EventServiceOptions {
  /** The server's database: the writer thread of its kind opens its own connections on it (writer/writer.ts). */
  target: DatabaseTarget;
  /** The writer thread's script, of the target's kind. */
  writerScript: WriterScript;
  /** The event export of the server's database (export.ts on SQLite, postgres-export.ts on PostgreSQL). */
  exportEvents: EventExport;
  retentionDays: number | undefined;
  /** Events accepted but not yet committed, at most; past it batches are refused with ingestion_overloaded. */
  queueLimit: number;
  /** The same bound in bytes of event data. */
  queueBytes: number;
  log: Logger;
  metrics: MetricsRegistry;
  /** Attributes keyless events and derives variants, without SQL. */
  paywalls: PaywallDirectory;
  placements: PlacementDirectory;
  /** Told of the placement opens the writer thread counted: every one it holds (`full`), then the new ones. */
  onPlacementOpens?: (full: boolean, opens: PlacementOpen[]) => void;
}

/** A time range as the caller gave it, in epoch milliseconds; absent ends take the defaults. */
interface Range {
  from?: number | undefined;
  to?: number | undefined;
}

function invalidRange(detail: string): DomainError {
  return new DomainError('invalid_range', detail);
}

/**
 * Ingestion, statistics and export. Built once: it owns the writer thread
 * (started with the server; statistics are kept in its memory) and its metrics; close() commits what is
 * queued and ends the thread.
 */
export class EventService {
  private readonly writer: EventWriter;
  private readonly count: EventCounters;

  constructor(private readonly options: EventServiceOptions) {
    this.writer = new EventWriter({
      target: options.target,
      script: options.writerScript,
      retentionDays: options.retentionDays,
      queueLimit: options.queueLimit,
      queueBytes: options.queueBytes,
      log: options.log,
      onTransaction: (rows) => this.count.transaction(rows),
      onOpens: (news) => options.onPlacementOpens?.(news.full, news.opens),
    });
    this.count = eventMetrics(options.metrics, this.writer);
  }

  /**
   * Stores a batch (its envelope checked by parseEnvelope) for the project of
   * its key, or attributes each event when there is none. Names no paywall
   * declares count in the team's limits with a secret key, else in the
   * budget of names sent without one (analytics/name-budget.ts).
   */
  async ingest(batch: Envelope, projectId: string | undefined, secretKey = false): Promise<IngestResult> {
    const receivedAt = Date.now();
    const { rows, marks, indexes, rejected } = prepareBatch(batch, {
      projectId,
      secretKey,
      receivedAt,
      paywalls: this.options.paywalls,
      placements: this.options.placements,
    });
    const { inserted: accepted, refused } = rows.length === 0 ? { inserted: 0, refused: [] } : await this.writer.write(rows, marks);
    for (const [row, code, budget] of refused) {
      rejected.push({ index: indexes[row]!, code, message: budget === 'public' ? PUBLIC_LIMIT_MESSAGES[code] : LIMIT_MESSAGES[code] });
    }
    if (refused.length > 0) rejected.sort((a, b) => a.index - b.index);
    const result: IngestResult = { accepted, duplicates: rows.length - accepted - refused.length, rejected };
    this.count.stored(result.accepted);
    this.count.duplicates(result.duplicates);
    for (const rejection of rejected) this.count.rejected(rejection.code);
    return result;
  }

  /** Per-variant statistics of the UTC days the range touches (default: the 30 days ending today). */
  async stats(projectId: string, paywallId: string, range: Range): Promise<Stats> {
    const toDay = dayOf(range.to ?? Date.now());
    const fromDay = range.from === undefined ? toDay - (DEFAULT_STATS_DAYS - 1) : dayOf(range.from);
    if (fromDay < FIRST_PRINTABLE_DAY || toDay > LAST_PRINTABLE_DAY) throw invalidRange('the range must lie within the years 0000 to 9999');
    if (fromDay > toDay) throw invalidRange('from must not be after to');
    if (toDay - fromDay + 1 > MAX_STATS_DAYS) throw invalidRange(`statistics cover at most ${MAX_STATS_DAYS} days per request`);
    const variants = await this.writer.stats(projectId, paywallId, fromDay, toDay);
    return { paywall_id: paywallId, from: dayText(fromDay), to: dayText(toDay), variants };
  }

  /** Experiment counts of one paywall segment (null: the default split) over one phase, folded by the writer thread. */
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery): Promise<FoldResult> {
    return this.writer.results(projectId, paywallId, audience, query);
  }

  /** The project's raw events in the range (default: all), as NDJSON chunks read lazily. */
  export(projectId: string, paywallId: string | undefined, range: Range): Iterable<string> | AsyncIterable<string> {
    const { from = 0, to = Number.MAX_SAFE_INTEGER } = range;
    if (from > to) throw invalidRange('from must not be after to');
    return this.options.exportEvents({ projectId, paywallId, from, to });
  }

  /** Writes identify's link through the writer thread, with the links that arrive meanwhile, and resolves once it is committed. */
  link(request: LinkRequest): Promise<LinkOutcome> {
    return this.writer.link(request);
  }

  /** Commits whatever is still queued, then the writer thread ends. */
  close(): Promise<void> {
    return this.writer.close();
  }
}
