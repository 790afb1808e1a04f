import * as v from 'valibot';
import { EARLIEST_MS, MAX_AHEAD_MS } from '../events/time.ts';
import type { Logger } from '../log.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { DomainError } from '../shared/errors.ts';
import type { SetAsideReason } from './dependent-records.ts';
import {
  MAX_PURCHASES_PER_REQUEST,
  PURCHASE_SOURCES,
  PurchaseEnvelopeSchema,
  type PurchaseRecord,
  type PurchaseRejectionCode,
  type PurchaseResult,
  PurchaseSchema,
  type PurchaseSource,
} from './schema.ts';
import type { Inserted, PurchaseBatch, PurchaseStore, StoredPurchase } from './store.ts';

const SET_ASIDE: Record<SetAsideReason, string> = {
  no_purchase: 'the refund names no purchase of its user (or original transaction) in its currency: stored, not counted',
  before_purchase: 'the refund is dated before every purchase it could take back: stored, not counted',
  over_paid: 'the refund is more than its purchases paid, net of earlier refunds: the excess is stored, not counted',
};

const RECORD_FIELDS = Object.keys(PurchaseSchema.pipe[0].entries).join(', ');

function describe(issue: v.BaseIssue<unknown>): string {
  const key = issue.path?.[0]?.key;
  if (issue.path === undefined) return issue.type === 'check' ? issue.message : 'a purchase must be a JSON object';
  if (typeof key !== 'string' || !Object.hasOwn(PurchaseSchema.pipe[0].entries, key)) return `unknown property; a purchase has ${RECORD_FIELDS}`;
  if (issue.kind === 'schema' && issue.input === undefined) return `${key} is required`;
  return `${key} ${issue.message}`;
}

/** One record of POST /api/purchases as stored, or why it is refused. */
function toRecord(input: unknown, receivedAt: number): PurchaseRecord | { code: PurchaseRejectionCode; message: string } {
  const parsed = v.safeParse(PurchaseSchema, input, { abortEarly: true });
  if (!parsed.success) return { code: 'invalid_purchase', message: describe(parsed.issues[0]) };
  const p = parsed.output;
  if (p.ts < EARLIEST_MS) return { code: 'ts_out_of_range', message: 'ts is before 2000-01-01' };
  if (p.ts > receivedAt + MAX_AHEAD_MS) return { code: 'ts_out_of_range', message: 'ts is more than 24 hours ahead of the server' };
  return {
    source: 'api',
    id: p.id,
    userId: p.user_id,
    type: p.type,
    ts: p.ts,
    productId: p.product_id ?? null,
    store: p.store ?? null,
    storeProductId: p.store_product_id ?? null,
    revenue: p.revenue,
    currency: p.currency,
    transactionId: null,
    originalTransactionId: p.original_transaction_id ?? null,
    paywallId: p.paywall_id ?? null,
  };
}

/** The purchase records of a project: the generic endpoint's and the connectors'. */
export class PurchaseService {
  private readonly counted;
  private readonly setAside;

  /** `stored`: told after each batch is stored, and awaited (the purchases.* facts read it: the answer then reflects it). */
  constructor(
    private readonly store: PurchaseStore,
    metrics: MetricsRegistry,
    private readonly log: Logger,
    private readonly stored: () => Promise<void> = async () => {},
  ) {
    this.setAside = metrics.counter(
      'paywalld_refunds_set_aside_total',
      'Refund records kept aside, in whole or in part, by source and reason (no_purchase, before_purchase, over_paid): stored, not counted in results.',
    );
    const counter = metrics.counter('paywalld_purchases_total', 'Purchase records received, by source and outcome (stored, duplicate, rejected).');
    this.counted = (source: PurchaseSource, outcome: 'stored' | 'duplicate' | 'rejected', n: number) => {
      if (n > 0) counter.labels({ source, outcome }).inc(n);
    };
    for (const source of PURCHASE_SOURCES) for (const outcome of ['stored', 'duplicate'] as const) counter.labels({ source, outcome });
  }

  /** POST /api/purchases: each record checked on its own; the valid ones stored in one durable transaction. */
  async ingest(body: unknown, projectId: string): Promise<PurchaseResult> {
    const receivedAt = Date.now();
    const envelope = v.safeParse(PurchaseEnvelopeSchema, body, { abortEarly: true });
    if (!envelope.success) {
      const issue = envelope.issues[0];
      if (issue.type === 'max_length') {
        throw new DomainError('too_many_purchases', `a request holds at most ${MAX_PURCHASES_PER_REQUEST} purchases; split it`);
      }
      throw new DomainError('invalid_purchases', 'the body must be a JSON object with a non-empty purchases array');
    }
    const records: PurchaseRecord[] = [];
    /** The index in the body of each record. */
    const indexes: number[] = [];
    const rejected: PurchaseResult['rejected'] = [];
    envelope.output.purchases.forEach((input, index) => {
      const checked = toRecord(input, receivedAt);
      if ('code' in checked) rejected.push({ index, ...checked });
      else {
        records.push(checked);
        indexes.push(index);
      }
    });
    const { inserted, setAside } = records.length === 0 ? { inserted: 0, setAside: [] } : await this.record(projectId, { records, receivedAt });
    this.counted('api', 'rejected', rejected.length);
    return {
      accepted: inserted,
      duplicates: records.length - inserted,
      rejected,
      set_aside: setAside.map(({ index, reason, amount }) => ({ index: indexes[index]!, reason, amount, message: SET_ASIDE[reason] })),
    };
  }

  /**
   * Stores records (a connector's) with what belongs with them (the users'
   * appAccountTokens, a customer, aliases) in one transaction; answers how
   * many were new and which refunds were kept aside (each logged and
   * counted). Durable when it resolves.
   */
  async record(projectId: string, batch: PurchaseBatch): Promise<Inserted> {
    const result = await this.store.insert(projectId, batch);
    await this.stored();
    const source = batch.records[0]?.source;
    if (source) {
      this.counted(source, 'stored', result.inserted);
      this.counted(source, 'duplicate', batch.records.length - result.inserted);
    }
    for (const { index, reason, amount } of result.setAside) {
      const record = batch.records[index]!;
      this.setAside.labels({ source: record.source, reason }).inc();
      this.log.warn(SET_ASIDE[reason], { project: projectId, source: record.source, id: record.id, amount, currency: record.currency });
    }
    return result;
  }

  list(projectId: string): Promise<StoredPurchase[]> {
    return this.store.list(projectId);
  }
}
