/**
 * Event times. Clients send `ts` in seconds or milliseconds (the client
 * interface leaves the unit open); values below 10^11 are seconds, the way
 * Mixpanel reads them: 10^11 s is the year 5138, 10^11 ms is March 1973
 * (docs/reference/events.md).
 */
const SECONDS_BELOW = 1e11;
const MILLIS_BELOW = 1e14;

/** Events before this are rejected: no app ran on a phone in 1999. */
export const EARLIEST_MS = Date.UTC(2000, 0, 1);
/** How far past the time of receipt an event may lie, after the skew correction. */
export const MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

export const DAY_MS = 24 * 60 * 60 * 1000;

/** A `ts` in one of the two units: a positive safe integer below 10^14. */
export function isEpochTime(ts: number): boolean {
  return Number.isSafeInteger(ts) && ts > 0 && ts < MILLIS_BELOW;
}

export function toMillis(ts: number): number {
  return ts < SECONDS_BELOW ? ts * 1000 : ts;
}

/** A `sent_at`: milliseconds only (docs/reference/events.md). */
export function isEpochMillis(value: number): boolean {
  return Number.isSafeInteger(value) && value >= SECONDS_BELOW && value < MILLIS_BELOW;
}

/** Days since 1970-01-01 (UTC) of a time in ms. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** Days that print as YYYY-MM-DD: 0000-01-01 to 9999-12-31 (past them ISO writes `+033658-09-…`). */
// setUTCFullYear, because Date.UTC reads years 0 to 99 as 1900 to 1999.
export const FIRST_PRINTABLE_DAY = dayOf(new Date(0).setUTCFullYear(0, 0, 1));
export const LAST_PRINTABLE_DAY = dayOf(Date.UTC(9999, 11, 31));

export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DIGITS = /^\d{1,15}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A query parameter naming a time: an ISO date (a whole UTC day: its first
 * millisecond for `start`, its last for `end`), an ISO date-time with a zone,
 * or epoch milliseconds. undefined when the text is none of those.
 */
export function parseInstant(text: string, edge: 'start' | 'end'): number | undefined {
  if (DIGITS.test(text)) return Number(text);
  if (DATE.test(text)) {
    const start = Date.parse(`${text}T00:00:00Z`);
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== text) return undefined;
    return edge === 'start' ? start : start + DAY_MS - 1;
  }
  if (DATE_TIME.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}
