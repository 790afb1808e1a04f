/**
 * Turns a parsed request body into the rows to store and the events to
 * reject: the whole-request checks first (a failure there stores nothing),
 * then each event on its own.
 */
import * as v from 'valibot';
import { MARK } from '../analytics/name-budget.ts';
import { DomainError } from '../shared/errors.ts';
import { parseEvent } from './event-parser.ts';
import type { EventRow } from './event-row.ts';
import { describeIssue, EventEnvelopeSchema, KNOWN_EVENT_TYPES, MAX_EVENTS_PER_BATCH, type Rejection } from './schema.ts';
import { EARLIEST_MS, MAX_AHEAD_MS } from './time.ts';

/** What events need to know about paywalls; implemented by the in-memory LivePaywalls. */
/** The project's placements (placements/live.ts): an event naming one that exists names no made-up segment. */
export interface PlacementDirectory {
  get(projectId: string, placementId: string): object | undefined;
}

export interface PaywallDirectory {
  /** Projects having a non-archived paywall with this id, the one serving it the longest first. */
  projectsWithPaywall(paywallId: string): readonly string[];
  /** The variant the resolve endpoint gives this user when it knows nothing else; undefined without a live revision. */
  variantFor(projectId: string, paywallId: string, userId: string): string | undefined;
  /** What the project's paywall declares (its live revision's variants and audiences); undefined when the project has no such paywall. */
  declared(projectId: string, paywallId: string): { variantIds: ReadonlySet<string>; audienceIds: ReadonlySet<string> } | undefined;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(KNOWN_EVENT_TYPES);

/** What the writer's admission needs to know of a row's names (analytics/name-budget.ts, MARK). */
function markOf({ paywalls, placements, secretKey }: BatchContext, row: EventRow): number {
  const [projectId, paywallId, type] = row;
  const variantId = row[9];
  const audience = row[12];
  const placement = row[15];
  const declared = paywalls.declared(projectId, paywallId);
  let mark = secretKey ? 0 : MARK.public;
  if (KNOWN_TYPES.has(type)) mark |= MARK.type;
  if (placement !== null && placements.get(projectId, placement) !== undefined) mark |= MARK.placement;
  if (declared === undefined) return mark;
  mark |= MARK.paywall;
  if (variantId !== null && declared.variantIds.has(variantId)) mark |= MARK.variant;
  if (audience !== null && declared.audienceIds.has(audience)) mark |= MARK.audience;
  return mark;
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
  /** Whether that key is a secret key: new names its events bring count in the team's limits. */
  secretKey: boolean;
  receivedAt: number;
  paywalls: PaywallDirectory;
  placements: PlacementDirectory;
}

interface PreparedBatch {
  rows: EventRow[];
  /** Per row, what is known of its names (analytics/name-budget.ts, MARK). */
  marks: number[];
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
  const marks: number[] = [];
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
      // Among several projects with this id, the one serving it the longest: a paywall another project creates or
      // publishes later never takes its keyless events (docs/reference/events.md, "Keys and attribution").
      projectId = paywalls.projectsWithPaywall(event.paywall_id)[0];
      if (projectId === undefined) {
        rejected.push({ index, code: 'unattributable', message: 'no project on this server has a paywall with this id; send an API key' });
        return;
      }
    }
    const userId = event.user_id ?? null;
    const variantId = event.variant_id ?? (userId === null ? undefined : paywalls.variantFor(projectId, event.paywall_id, userId)) ?? null;
    indexes.push(index);
    const row: EventRow = [
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
    ];
    rows.push(row);
    marks.push(markOf(context, row));
  });
  return { rows, marks, indexes, rejected };
}
