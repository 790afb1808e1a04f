/** Reading a store's JSON after its signature verified: a missing or mistyped field is 400 invalid_notification, never a crash. */
import { DomainError } from '../../shared/errors.ts';

export function invalidNotification(why: string): DomainError {
  return new DomainError('invalid_notification', `the notification is not in the provider's format: ${why}`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJson(body: Buffer | string): unknown {
  try {
    return JSON.parse(typeof body === 'string' ? body : utf8.decode(body));
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
