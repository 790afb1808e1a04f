/**
 * The shapes of the events feature, each written once: the ingestion request
 * (validated event by event, so one bad event does not sink its batch), the
 * per-event rejection codes, the query strings of the read endpoints and the
 * response bodies (for /api/openapi.json).
 */
import * as v from 'valibot';
import { ID_PATTERN } from '../shared/id-pattern.ts';
import { storableText } from '../shared/text.ts';
import { isEpochMillis, isEpochTime, parseInstant, toMillis } from './time.ts';

/** The most events one request may carry; more is a 413 (too_many_events). */
export const MAX_EVENTS_PER_BATCH = 1000;
/** The most bytes `properties` may take as JSON (UTF-8). */
export const MAX_PROPERTIES_BYTES = 8 * 1024;
/**
 * The deepest `properties` may nest (the object itself is level 1), as for
 * a document's free-form JSON: JSON.stringify recurses, and a few thousand
 * levels overflow the stack (a 500 for the whole batch, retried forever).
 */
const MAX_PROPERTIES_DEPTH = 32;
/** The largest revenue, in major units of any currency: more is a mistake, and sums of it stay exact and finite. */
export const MAX_REVENUE = 1e9;

/** Whether a JSON value nests at most MAX_PROPERTIES_DEPTH objects and arrays deep; walked without recursion. */
export function nestsWithinLimit(value: unknown): boolean {
  const stack: [node: unknown, depth: number][] = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, depth] = entry;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > MAX_PROPERTIES_DEPTH) return false;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return true;
}

export const KNOWN_EVENT_TYPES = [
  'screen_impression',
  'paywall_close',
  'purchase_start',
  'purchase_complete',
  'purchase_fail',
  'purchase_cancel',
  'restore_start',
  'restore_complete',
] as const;

/** Known types are examples, not a closed list: any name of this form is stored. */
const EVENT_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

const TS_RULE = 'must be a positive integer: seconds below 10^11, milliseconds from 10^11 to below 10^14';

function text(max: number) {
  return v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`), storableText());
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One event. The output is what gets stored: `ts` in milliseconds (still
 * before the clock-skew correction) and `properties` as JSON text.
 * Optional fields may also be sent as null.
 */
export const EventSchema = v.strictObject({
  type: v.pipe(v.string('must be a string'), v.regex(EVENT_TYPE, 'must match [a-z][a-z0-9_]{0,63}')),
  paywall_id: v.pipe(v.string('must be a string'), v.regex(ID_PATTERN, `must match ${ID_PATTERN.source.slice(1, -1)}`)),
  ts: v.pipe(
    v.number('must be a number'),
    v.description('epoch time: seconds below 10^11, milliseconds from 10^11 to below 10^14'),
    v.check(isEpochTime, TS_RULE),
    v.transform(toMillis),
  ),
  /** Client-generated; the deduplication key together with the project and `ts`. */
  id: v.nullish(text(64)),
  user_id: v.nullish(text(256)),
  variant_id: v.nullish(text(64)),
  product_id: v.nullish(text(256)),
  /** The `variant.audience` of the resolve answer: the segment the user was randomized in (null: the default split). */
  audience: v.nullish(text(64)),
  /** The placement that showed the paywall (GET /api/sdk/placement): what its frequency caps and results count. */
  placement: v.nullish(
    v.pipe(
      v.string('must be a string'),
      v.regex(ID_PATTERN, `must match ${ID_PATTERN.source.slice(1, -1)}`),
      v.description('the placement the paywall was shown through (docs/guide/placements.md)'),
    ),
  ),
  /** purchase_complete only: the amount in major units (9.99), never converted; requires currency. */
  revenue: v.nullish(
    v.pipe(
      v.number('must be a number'),
      v.description(`purchase_complete only: the amount in major units (e.g. 9.99), from 0 to ${MAX_REVENUE}; requires currency`),
      v.finite('must be a finite number'),
      v.minValue(0, 'must not be negative'),
      v.maxValue(MAX_REVENUE, `must be at most ${MAX_REVENUE}`),
    ),
  ),
  /** ISO 4217: three capital letters. */
  currency: v.nullish(v.pipe(v.string('must be a string'), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code: three capital letters'))),
  properties: v.nullish(
    v.pipe(
      v.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object'),
      v.description(`a JSON object of at most ${MAX_PROPERTIES_BYTES} bytes as JSON, nesting at most ${MAX_PROPERTIES_DEPTH} levels deep`),
      v.check<Record<string, unknown>, string>(nestsWithinLimit, `must nest at most ${MAX_PROPERTIES_DEPTH} objects or arrays deep`),
      v.transform((value) => JSON.stringify(value)),
      v.check((json) => Buffer.byteLength(json) <= MAX_PROPERTIES_BYTES, `must be at most ${MAX_PROPERTIES_BYTES} bytes as JSON`),
    ),
  ),
});
export type Event = v.InferOutput<typeof EventSchema>;

const EVENT_FIELDS = Object.keys(EventSchema.entries).join(', ');

/** The request body around a list of items: parsed with unknown items first, then each event on its own. */
function envelope<T extends v.GenericSchema>(item: T) {
  return v.strictObject({
    events: v.pipe(
      v.array(item, 'events must be an array'),
      v.minLength(1, 'events must not be empty'),
      v.maxLength(MAX_EVENTS_PER_BATCH, `a batch holds at most ${MAX_EVENTS_PER_BATCH} events`),
    ),
    sent_at: v.nullish(
      v.pipe(
        v.number('sent_at must be a number'),
        v.description("when the client sent the batch, by its own clock, in epoch ms: corrects that clock's skew"),
        v.check(isEpochMillis, 'sent_at must be epoch milliseconds'),
      ),
    ),
  });
}

/** The documented request body of POST /api/sdk/events. */
export const EventBatchSchema = envelope(EventSchema);
/** The whole-request check: everything but the events themselves. */
export const EventEnvelopeSchema = envelope(v.unknown());

export const REJECTION_CODES = [
  'invalid_event',
  'invalid_type',
  'ts_unit',
  'ts_out_of_range',
  'unattributable',
  'properties_too_large',
  'properties_too_deep',
  'revenue_out_of_range',
  'too_many_event_types',
  'too_many_paywalls',
  'too_many_variants',
  'too_many_audiences',
] as const;
export type RejectionCode = (typeof REJECTION_CODES)[number];

export interface Rejection {
  index: number;
  code: RejectionCode;
  message: string;
}

/** Fields whose value rules (not their JSON type) have a code of their own. */
const VALUE_RULE_CODES: Partial<Record<string, RejectionCode>> = {
  type: 'invalid_type',
  ts: 'ts_unit',
  properties: 'properties_too_large',
};

/** The code of a value rule of a field that has several (by the rule's type; a check by its function). */
function valueRuleCode(key: string, issue: v.BaseIssue<unknown>): RejectionCode | undefined {
  if (key === 'revenue') return issue.type === 'finite' || issue.type === 'max_value' ? 'revenue_out_of_range' : undefined;
  if (key === 'properties' && issue.requirement === nestsWithinLimit) return 'properties_too_deep';
  return VALUE_RULE_CODES[key];
}

/**
 * The code and message of an event's first issue. Messages name only the
 * schema's own fields, never an input value or an unknown key.
 */
export function describeIssue(issue: v.BaseIssue<unknown>): { code: RejectionCode; message: string } {
  const key = issue.path?.[0]?.key;
  if (typeof key !== 'string') return { code: 'invalid_event', message: 'an event must be a JSON object' };
  if (!Object.hasOwn(EventSchema.entries, key)) return { code: 'invalid_event', message: `unknown property; an event has ${EVENT_FIELDS}` };
  if (issue.kind === 'schema' && issue.input === undefined) return { code: 'invalid_event', message: `${key} is required` };
  return { code: (issue.kind === 'validation' && valueRuleCode(key, issue)) || 'invalid_event', message: `${key} ${issue.message}` };
}

export const IngestResultSchema = v.object({
  accepted: v.pipe(v.number(), v.description('events stored by this request')),
  duplicates: v.pipe(v.number(), v.description('events whose id was already stored for the project')),
  rejected: v.array(v.object({ index: v.number(), code: v.picklist(REJECTION_CODES), message: v.string() })),
});
export type IngestResult = v.InferOutput<typeof IngestResultSchema>;

const TIME_HELP = 'an ISO date (a whole UTC day), an ISO date-time with a zone, or epoch milliseconds';

function instant(edge: 'start' | 'end') {
  return v.pipe(
    v.string(),
    v.description(`${edge === 'start' ? 'from' : 'up to and including'} ${TIME_HELP}`),
    v.transform((value) => parseInstant(value, edge)),
    v.number(`must be ${TIME_HELP}`),
  );
}

export const StatsQuerySchema = v.object({ from: v.optional(instant('start')), to: v.optional(instant('end')) });

export const ExportQuerySchema = v.object({
  paywallId: v.optional(v.pipe(v.string(), v.regex(ID_PATTERN, 'must be a paywall id'))),
  from: v.optional(instant('start')),
  to: v.optional(instant('end')),
});

const FiguresEntries = {
  counts: v.pipe(v.record(v.string(), v.number()), v.description('events per type; every known type is listed, 0 when none')),
  unique_users: v.number(),
  conversion_rate: v.pipe(v.nullable(v.number()), v.description('purchase_complete / screen_impression; null without impressions')),
};

export const StatsSchema = v.object({
  paywall_id: v.string(),
  from: v.pipe(v.string(), v.isoDate(), v.description('first UTC day of the range')),
  to: v.pipe(v.string(), v.isoDate(), v.description('last UTC day of the range, included')),
  variants: v.array(
    v.object({
      variant_id: v.pipe(v.string(), v.description('"unknown" for events whose variant was neither sent nor derivable')),
      totals: v.object(FiguresEntries),
      days: v.array(v.object({ day: v.pipe(v.string(), v.isoDate()), ...FiguresEntries })),
    }),
  ),
});
export type Stats = v.InferOutput<typeof StatsSchema>;

/** One line of the NDJSON export. */
export const ExportedEventSchema = v.object({
  id: v.nullable(v.string()),
  type: v.string(),
  paywall_id: v.string(),
  ts: v.pipe(v.number(), v.description('event time in ms, corrected for clock skew when the batch had sent_at')),
  client_ts: v.pipe(v.number(), v.description('event time in ms as the client sent it')),
  sent_at: v.nullable(v.number()),
  received_at: v.number(),
  user_id: v.nullable(v.string()),
  variant_id: v.nullable(v.string()),
  product_id: v.nullable(v.string()),
  audience: v.nullable(v.string()),
  revenue: v.nullable(v.number()),
  currency: v.nullable(v.string()),
  properties: v.nullable(v.record(v.string(), v.unknown())),
  placement: v.nullable(v.string()),
});
