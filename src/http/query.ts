/**
 * Parses a raw query string (without `?`) into name/value pairs exactly as
 * URLSearchParams does (WHATWG application/x-www-form-urlencoded: `+` is a
 * space, percent-escapes are UTF-8 bytes, broken escapes stay as written and
 * broken UTF-8 becomes U+FFFD), at a fraction of its cost: the resolve hot
 * path reads a query on every request, and most names and values need no
 * decoding at all.
 */
import { collectQueryParams } from '../shared/query.ts';
import { decodeComponent } from '../shared/query-component.ts';

export type QueryPairs = readonly (readonly [name: string, value: string])[];

export function parseQuery(raw: string): QueryPairs {
  const pairs: (readonly [string, string])[] = [];
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      if (eq === -1 || eq > end) pairs.push([decodeComponent(raw.slice(start, end)), '']);
      else pairs.push([decodeComponent(raw.slice(start, eq)), decodeComponent(raw.slice(eq + 1, end))]);
    }
    start = end + 1;
  }
  return pairs;
}

/** The query as a record of parameters, by the one rule of src/shared/query.ts. */
export function queryParams(pairs: QueryPairs): Record<string, string> {
  return collectQueryParams(pairs).params;
}
