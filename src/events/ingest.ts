/**
 * Turns a parsed request body into the rows to store and the events to
 * reject: the whole-request checks first (a failure there stores nothing),
 * then each event on its own.
 */
import * as v from 'valibot';
import { DomainError } from '../shared/errors.ts';
import { parseEvent } from './event-parser.ts';
import type { EventRow } from './event-row.ts';
import { describeIssue, EventEnvelopeSchema, MAX_EVENTS_PER_BATCH, type Rejection } from './schema.ts';
import { EARLIEST_MS, MAX_AHEAD_MS } from './time.ts';

/** What events need to know about paywalls; implemented by the in-memory LivePaywalls. */
export interface PaywallDirectory {
  /** Projects having a non-archived paywall with this id. */
  projectsWithPaywall(paywallId: string): readonly string[];
  /** Whether the project's paywall has a live revision. */
  isLive(projectId: string, paywallId: string): boolean;
  /** The variant the resolve endpoint gives this user when it knows nothing else; undefined without a live revision. */
  variantFor(projectId: string, paywallId: string, userId: string): string | undefined;
}

export type Envelope = v.InferOutput<typeof EventEnvelopeSchema>;

const ENVELOPE_FIELDS = Object.keys(EventEnvelopeSchema.entries).join(' and ');

/** The batch around the events: 400 invalid_batch, or 413 too_many_events past the limit. */
export function parseEnvelope(body: unknown): Envelope {
  const result = v.safeParse(EventEnvelopeSchema, body, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  if (issue.type === 'max_length') {
    throw new DomainError('too_many_events', `a batch holds at most ${MAX_EVENTS_PER_BATCH} events; split it`);
  }
  const key = issue.path?.[0]?.key;
  const detail =
    typeof key !== 'string'
      ? `the body must be a JSON object with ${ENVELOPE_FIELDS}`
      : !Object.hasOwn(EventEnvelopeSchema.entries, key)
        ? `unknown property; a batch has ${ENVELOPE_FIELDS}`
        : issue.kind === 'schema' && issue.input === undefined
          ? `${key} is required`
          : issue.message;
  throw new DomainError('invalid_batch', detail);
}

interface BatchContext {
  /** The project of the request's API key; undefined for a keyless request. */
  projectId: string | undefined;
  receivedAt: number;
  paywalls: PaywallDirectory;
}

interface PreparedBatch {
  rows: EventRow[];
  /** The index in the batch of each row's event. */
  indexes: number[];
  rejected: Rejection[];
}

/** Validates, dates, attributes and completes every event of the batch. */
export function prepareBatch(batch: Envelope, context: BatchContext): PreparedBatch {
  const { receivedAt, paywalls } = context;
  const sentAt = batch.sent_at ?? null;
  // The device clock is off by this much; every event of the batch was timed by the same clock.
  const skew = sentAt === null ? 0 : receivedAt - sentAt;
  const rows: EventRow[] = [];
  const indexes: number[] = [];
  const rejected: Rejection[] = [];
  batch.events.forEach((input, index) => {
    const result = parseEvent(input);
    if (!result.success) {
      rejected.push({ index, ...describeIssue(result.issue) });
      return;
    }
    const event = result.output;
    const revenue = event.revenue ?? null;
    if (revenue !== null && event.type !== 'purchase_complete') {
      rejected.push({ index, code: 'invalid_event', message: 'revenue is only accepted on purchase_complete' });
      return;
    }
    if (revenue !== null && (event.currency ?? null) === null) {
      rejected.push({ index, code: 'invalid_event', message: 'currency is required with revenue' });
      return;
    }
    const ts = event.ts + skew;
    if (ts < EARLIEST_MS) {
      rejected.push({ index, code: 'ts_out_of_range', message: 'ts is before 2000-01-01 (after the clock-skew correction)' });
      return;
    }
    if (ts > receivedAt + MAX_AHEAD_MS) {
      rejected.push({ index, code: 'ts_out_of_range', message: 'ts is more than 24 hours ahead of the server (after the clock-skew correction)' });
      return;
    }
    let projectId = context.projectId;
    if (projectId === undefined) {
      let owners = paywalls.projectsWithPaywall(event.paywall_id);
      // Another project's draft of the same id must not take a live paywall's events away: among several, the live ones count.
      if (owners.length > 1) {
        const live = owners.filter((owner) => paywalls.isLive(owner, event.paywall_id));
        if (live.length > 0) owners = live;
      }
      if (owners.length !== 1) {
        rejected.push({
          index,
          code: 'unattributable',
          message:
            owners.length === 0
              ? 'no project on this server has a paywall with this id; send an API key'
              : 'several projects have a paywall with this id; send an API key to say which',
        });
        return;
      }
      projectId = owners[0]!;
    }
    const userId = event.user_id ?? null;
    const variantId = event.variant_id ?? (userId === null ? undefined : paywalls.variantFor(projectId, event.paywall_id, userId)) ?? null;
    indexes.push(index);
    rows.push([
      projectId,
      event.paywall_id,
      event.type,
      ts,
      event.ts,
      sentAt,
      receivedAt,
      event.id ?? null,
      userId,
      variantId,
      event.product_id ?? null,
      event.properties ?? null,
      event.audience ?? null,
      revenue,
      event.currency ?? null,
      event.placement ?? null,
    ]);
  });
  return { rows, indexes, rejected };
}
