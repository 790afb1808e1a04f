/**
 * Optimistic concurrency: every resource a client may change has a version
 * tag (its version, quoted: an HTTP entity tag, and what `paywalld apply`
 * compares too). A change names the tag it was based on (If-Match), or asks
 * to create only (If-None-Match: *); a service checks it inside the change's
 * transaction, so no other write slips in between.
 */
import { DomainError } from './errors.ts';

/** The tag of a version number (or text), for resources whose version grows with every change. */
export function entityTag(version: string | number): string {
  return `"${version}"`;
}

/** A change's preconditions, as sent: '' when absent. */
export interface Preconditions {
  ifMatch: string;
  ifNoneMatch: string;
}

/** The tags of an If-Match or If-None-Match value: `*`, or the listed tags with their W/ kept. */
export function listedTags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * Refuses a change when If-Match is present and the resource's current tag
 * is not among its tags (strong comparison: a weak tag never matches), or
 * when the resource does not exist at all.
 */
export function requireIfMatch(header: string, current: string | undefined): void {
  if (header === '') return;
  const tags = listedTags(header);
  const matches = current !== undefined && (tags.includes('*') || tags.includes(current));
  if (!matches) {
    throw new DomainError('precondition_failed', 'the resource has changed since it was read (If-Match does not match its ETag); read it again and retry');
  }
}

/** Refuses a change when `If-None-Match: *` asks to create only and the resource exists. */
export function requireIfNoneMatch(header: string, current: string | undefined): void {
  if (header === '' || current === undefined) return;
  const tags = listedTags(header);
  if (tags.includes('*') || tags.includes(current)) throw new DomainError('precondition_failed', 'the resource already exists (If-None-Match)');
}
