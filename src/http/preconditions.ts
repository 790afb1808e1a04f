/**
 * Conditional requests (RFC 9110 §13): ETags on reads, If-Match against lost
 * updates on writes, If-None-Match for 304s. Entity tags are opaque quoted
 * strings chosen by the feature; this module only compares them.
 */
import { createHash } from 'node:crypto';
import { ProblemError } from './problem.ts';
import { empty, rawJson, type Reply } from './reply.ts';

/** The quoted entity tag of a version number, for resources whose version grows with every change. */
export function entityTag(version: string | number): string {
  return `"${version}"`;
}

/** A strong entity tag made of the body itself: 160 bits of its SHA-256, base64url. */
export function digestTag(body: string | Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The entity tags of an If-Match or If-None-Match header: `*`, or the listed tags with their W/ kept. */
function listedTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
}

/**
 * Refuses a write with 412 when an If-Match header is present and the
 * resource's current tag is not among its tags (strong comparison: a weak tag
 * never matches), or when the resource does not exist at all.
 */
export function requireIfMatch(header: string, current: string | undefined): void {
  if (header === '') return;
  const tags = listedTags(header);
  const matches = current !== undefined && (tags.includes('*') || tags.includes(current));
  if (!matches) {
    throw new ProblemError(412, 'precondition_failed', 'the resource has changed since it was read (If-Match does not match its ETag); read it again and retry');
  }
}

/** Refuses a write with 412 when `If-None-Match: *` asks to create only and the resource exists. */
export function requireIfNoneMatch(header: string, current: string | undefined): void {
  if (header === '' || current === undefined) return;
  const tags = listedTags(header);
  if (tags.includes('*') || tags.includes(current)) {
    throw new ProblemError(412, 'precondition_failed', 'the resource already exists (If-None-Match)');
  }
}

/** Whether a GET may answer 304: If-None-Match lists the current tag (weak comparison) or `*`. */
export function notModified(header: string, current: string): boolean {
  if (header === '') return false;
  if (header === current) return true;
  for (const tag of listedTags(header)) {
    if (tag === '*' || tag === current || (tag.startsWith('W/') && tag.slice(2) === current)) return true;
  }
  return false;
}

/**
 * A 200 JSON reply carrying its ETag (the given one, or a digest of the body),
 * or a bodiless 304 when the request's If-None-Match already holds that tag.
 */
export function taggedJson(ifNoneMatch: string, value: unknown, tag?: string): Reply {
  const body = JSON.stringify(value);
  const etag = tag ?? digestTag(body);
  if (notModified(ifNoneMatch, etag)) return empty(304, { ETag: etag });
  return rawJson(200, body, { ETag: etag });
}
