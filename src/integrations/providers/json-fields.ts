/** Reading a store's JSON after its signature verified: a missing or mistyped field is 400 invalid_notification, never a crash. */
import { DomainError } from '../../shared/errors.ts';

export function invalidNotification(why: string): DomainError {
  return new DomainError('invalid_notification', `the notification is not in the provider's format: ${why}`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Deeper than any store's format (Stripe's events nest about 8 levels, an App Store body 1). */
const MAX_NOTIFICATION_DEPTH = 64;

/** Values in JSON parsed before its signature verifies (an App Store body, a JWS header): Apple's hold fewer than 10. */
export const MAX_UNVERIFIED_VALUES = 16;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Why V8 should not parse these JSON bytes, if it should not: nesting deeper than `maxDepth`, or more than
 * `maxValues` values in objects and arrays. Both cost V8 far more per byte than strings do (a megabyte of
 * `[{},{},…]` takes it about 275 ms), and one pass over the bytes, strings skipped, finds them in a few.
 */
function tooComplex(bytes: Buffer, maxDepth: number, maxValues: number): string | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return `the body nests more than ${maxDepth} levels deep`;
      if (++values > maxValues) return `the body holds more than ${maxValues} values`;
    } else if (byte === COMMA) {
      if (++values > maxValues) return `the body holds more than ${maxValues} values`;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
  return undefined;
}

/**
 * A notification's JSON: invalid_notification for bytes that are not UTF-8 JSON, nest deeper than
 * MAX_NOTIFICATION_DEPTH or hold more than `maxValues` values (checked before V8 parses them; a body
 * parsed before its signature verifies passes a small `maxValues`).
 */
export function parseJson(body: Buffer, maxValues = Number.POSITIVE_INFINITY): unknown {
  const why = tooComplex(body, MAX_NOTIFICATION_DEPTH, maxValues);
  if (why !== undefined) throw invalidNotification(why);
  try {
    return JSON.parse(utf8.decode(body));
  } catch {
    throw invalidNotification('the body is not UTF-8 JSON');
  }
}

export function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidNotification(`${what} is not an object`);
  return value as Record<string, unknown>;
}

/** An own property (never one of Object.prototype's). */
export function field(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

/** A required non-empty string field. */
export function text(value: Record<string, unknown>, key: string): string {
  const found = field(value, key);
  if (typeof found !== 'string' || found === '' || found.length > 1024) throw invalidNotification(`${key} is missing`);
  return found;
}
