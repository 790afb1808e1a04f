/**
 * Arrays as query parameters (the events insert's `unnest($1::text[], …)`,
 * `id = ANY($1)`), serialized here rather than by the driver: the driver
 * learns array types by a query it sends on each new connection
 * (`fetch_types`), and when that connection is cut before the answer, the
 * query's failure reaches no caller and ends the process (porsager/postgres
 * fetchArrayTypes has no catch). With `fetch_types: false` (connection.ts)
 * the driver knows no array type, so the ones paywalld sends are declared
 * here, by their PostgreSQL type oid, as array literals.
 */

/** An array literal: each element quoted, `"` and `\` escaped, null as NULL (PostgreSQL's array input syntax). */
export function arrayLiteral(values: readonly unknown[]): string {
  return `{${values.map((value) => (value === null || value === undefined ? 'NULL' : `"${String(value).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}

/** text[], int4[], int8[] and float8[]: the array types paywalld's queries (and its tests') send. Results hold no arrays, so none is parsed. */
export const ARRAY_PARAMETERS = {
  textArray: { to: 1009, from: [] as number[], serialize: arrayLiteral, parse: (raw: string) => raw },
  int4Array: { to: 1007, from: [] as number[], serialize: arrayLiteral, parse: (raw: string) => raw },
  int8Array: { to: 1016, from: [] as number[], serialize: arrayLiteral, parse: (raw: string) => raw },
  float8Array: { to: 1022, from: [] as number[], serialize: arrayLiteral, parse: (raw: string) => raw },
};
