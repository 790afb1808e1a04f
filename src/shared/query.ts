import * as v from 'valibot';
import { DomainError } from './errors.ts';
import { issuesToErrors } from './issues.ts';

/** A query's parameters as the edge reads them, and those whose name starts with the prefix asked for, without it. */
interface QueryParams {
  params: Record<string, string>;
  prefixed: Record<string, string> | undefined;
}

/**
 * The one rule for query parameters: the first value of each name counts,
 * an empty value counts as absent (apps send `userId=` for a signed-out
 * user), and the records have no prototype, so a name such as `__proto__`
 * is just a name. Names starting with `prefix` (`attr.`) go to `prefixed`,
 * without it, in the same pass: the resolve hot path reads them.
 */
export function collectQueryParams(pairs: Iterable<readonly [name: string, value: string]>, prefix?: string): QueryParams {
  const params: Record<string, string> = Object.create(null);
  let prefixed: Record<string, string> | undefined;
  for (const [name, value] of pairs) {
    if (value === '') continue;
    if (prefix !== undefined && name.startsWith(prefix)) {
      if (name.length === prefix.length) continue;
      prefixed ??= Object.create(null) as Record<string, string>;
      const key = name.slice(prefix.length);
      if (!Object.hasOwn(prefixed, key)) prefixed[key] = value;
    } else if (!Object.hasOwn(params, name)) {
      params[name] = value;
    }
  }
  return { params, prefixed };
}

/**
 * Parses query parameters (collected by collectQueryParams) with `schema`: the one way every endpoint reads
 * its query, so a bad one is always 400 invalid_query with every problem
 * listed at its pointer (`/name`).
 */
export function parseQueryParams<S extends v.GenericSchema>(schema: S, params: Readonly<Record<string, string>>): v.InferOutput<S> {
  const result = v.safeParse(schema, params);
  if (result.success) return result.output;
  throw new DomainError('invalid_query', 'the query string is invalid; see errors', { errors: issuesToErrors(result.issues) });
}
