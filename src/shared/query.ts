import * as v from 'valibot';
import { DomainError } from './errors.ts';
import { issuesToErrors } from './issues.ts';

/**
 * Parses query parameters (a record built by the edge: first value of each
 * name, empty values absent) with `schema`: the one way every endpoint reads
 * its query, so a bad one is always 400 invalid_query with every problem
 * listed at its pointer (`/name`).
 */
export function parseQueryParams<S extends v.GenericSchema>(schema: S, params: Readonly<Record<string, string>>): v.InferOutput<S> {
  const result = v.safeParse(schema, params);
  if (result.success) return result.output;
  throw new DomainError('invalid_query', 'the query string is invalid; see errors', { errors: issuesToErrors(result.issues) });
}
