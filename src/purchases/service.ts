import * as v from 'valibot';
import { EARLIEST_MS, MAX_AHEAD_MS } from '../events/time.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { DomainError } from '../shared/errors.ts';
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
import type { PurchaseBatch, PurchaseStore, StoredPurchase } from './store.ts';

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

  /** `stored`: told after each batch is stored, and awaited (the purchases.* facts read it: the answer then reflects it). */
  constructor(
    private readonly store: PurchaseStore,
    metrics: MetricsRegistry,
    private readonly stored: () => Promise<void> = async () => {},
  ) {
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
    const rejected: PurchaseResult['rejected'] = [];
    envelope.output.purchases.forEach((input, index) => {
      const checked = toRecord(input, receivedAt);
      if ('code' in checked) rejected.push({ index, ...checked });
      else records.push(checked);
    });
    const accepted = records.length === 0 ? 0 : await this.record(projectId, { records, receivedAt });
    this.counted('api', 'rejected', rejected.length);
    return { accepted, duplicates: records.length - accepted, rejected };
  }

  /**
   * Stores records (a connector's) with what belongs with them (the users'
   * appAccountTokens, a customer, aliases) in one transaction; returns how
   * many were new. Durable when it resolves.
   */
  async record(projectId: string, batch: PurchaseBatch): Promise<number> {
    const inserted = await this.store.insert(projectId, batch);
    await this.stored();
    const source = batch.records[0]?.source;
    if (source) {
      this.counted(source, 'stored', inserted);
      this.counted(source, 'duplicate', batch.records.length - inserted);
    }
    return inserted;
  }

  list(projectId: string): Promise<StoredPurchase[]> {
    return this.store.list(projectId);
  }
}
