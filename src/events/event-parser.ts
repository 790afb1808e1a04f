/**
 * The per-event check of POST /api/sdk/events. EventSchema (valibot) stays
 * the one definition of an event: it types the output, documents the API
 * and words every rejection. Running it on every event of every batch was a
 * fifth of the request thread's time, so an event that plainly passes every
 * rule is checked and built here, by the schema's own rules and limits; any
 * event this path does not accept outright goes through EventSchema itself,
 * which accepts or rejects it. An event is thus accepted exactly when the
 * schema accepts it, with the schema's output, and always refused with the
 * schema's issue (test/events/event-parser.unit.test.ts runs both over generated
 * events).
 */
import * as v from 'valibot';
import { isStorableText } from '../shared/text.ts';
import { type Event, EventSchema, MAX_PROPERTIES_BYTES, MAX_REVENUE, nestsWithinLimit } from './schema.ts';
import { isEpochTime, toMillis } from './time.ts';

type ParsedEvent = { success: true; output: Event } | { success: false; issue: v.BaseIssue<unknown> };

type Entries = typeof EventSchema.entries;
type Action = { type: string; requirement?: unknown };

/** The actions of a schema's pipe (inside nullish), where the limits and patterns are stated. */
function actions(schema: v.GenericSchema): Action[] {
  const inner = (schema as { wrapped?: v.GenericSchema }).wrapped ?? schema;
  return ((inner as { pipe?: Action[] }).pipe ?? []) as Action[];
}

function requirementOf<T>(key: keyof Entries, type: string): T {
  const action = actions(EventSchema.entries[key]).find((a) => a.type === type);
  if (action === undefined) throw new Error(`EventSchema.${key} has no ${type} action`);
  return action.requirement as T;
}

const TYPE = requirementOf<RegExp>('type', 'regex');
const PAYWALL = requirementOf<RegExp>('paywall_id', 'regex');
const CURRENCY = requirementOf<RegExp>('currency', 'regex');
const PLACEMENT = requirementOf<RegExp>('placement', 'regex');
/** The optional text fields and their longest length (UTF-16 units, as valibot's maxLength counts); each also storable text (src/shared/text.ts). */
const TEXTS = (['id', 'user_id', 'variant_id', 'product_id', 'audience'] as const).map((key) => [key, requirementOf<number>(key, 'max_length')] as const);
const KNOWN = new Set(Object.keys(EventSchema.entries));

/** The event as EventSchema would output it, or undefined when any rule might not hold (EventSchema then decides). */
export function fastEvent(input: unknown): Event | undefined {
  // Plain objects as JSON.parse makes them: valibot reads inherited keys too, so anything else goes to it.
  if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype) return undefined;
  const event = input as Record<string, unknown>;
  for (const key in event) if (!KNOWN.has(key) || !Object.hasOwn(event, key)) return undefined;
  const { type, paywall_id, ts } = event;
  if (typeof type !== 'string' || !TYPE.test(type)) return undefined;
  if (typeof paywall_id !== 'string' || !PAYWALL.test(paywall_id)) return undefined;
  if (typeof ts !== 'number' || !isEpochTime(ts)) return undefined;
  const output: Record<string, unknown> = { type, paywall_id, ts: toMillis(ts) };
  for (const [key, max] of TEXTS) {
    if (!(key in event)) continue;
    const value = event[key];
    if (value !== null && value !== undefined && (typeof value !== 'string' || value.length < 1 || value.length > max || !isStorableText(value)))
      return undefined;
    output[key] = value;
  }
  if ('revenue' in event) {
    const revenue = event.revenue;
    if (revenue !== null && revenue !== undefined && (typeof revenue !== 'number' || !(revenue >= 0 && revenue <= MAX_REVENUE))) return undefined;
    output.revenue = revenue;
  }
  if ('currency' in event) {
    const currency = event.currency;
    if (currency !== null && currency !== undefined && (typeof currency !== 'string' || !CURRENCY.test(currency))) return undefined;
    output.currency = currency;
  }
  if ('placement' in event) {
    const placement = event.placement;
    if (placement !== null && placement !== undefined && (typeof placement !== 'string' || !PLACEMENT.test(placement))) return undefined;
    output.placement = placement;
  }
  if ('properties' in event) {
    const properties = event.properties;
    if (properties === null || properties === undefined) output.properties = properties;
    else {
      if (typeof properties !== 'object' || Array.isArray(properties) || !nestsWithinLimit(properties)) return undefined;
      const json = JSON.stringify(properties);
      // Under the limit even at 3 bytes per UTF-16 unit: no need to count the bytes.
      if (json.length * 3 > MAX_PROPERTIES_BYTES && Buffer.byteLength(json) > MAX_PROPERTIES_BYTES) return undefined;
      output.properties = json;
    }
  }
  return output as Event;
}

/** One event of a batch: accepted with EventSchema's output, or refused with its first issue. */
export function parseEvent(input: unknown): ParsedEvent {
  const output = fastEvent(input);
  if (output !== undefined) return { success: true, output };
  const result = v.safeParse(EventSchema, input, { abortEarly: true });
  return result.success ? { success: true, output: result.output } : { success: false, issue: result.issues[0] };
}
