/**
 * Conditional reads (RFC 9110 §13): ETags on answers and 304 for
 * If-None-Match. Writes check their If-Match in the services
 * (src/shared/preconditions.ts), inside their transactions.
 */
import { digestTag } from '../shared/digest.ts';
import { listedTags } from '../shared/preconditions.ts';
import { empty, type Reply, rawJson } from './reply.ts';

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
