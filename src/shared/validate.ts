import * as v from 'valibot';
import { DomainError } from './errors.ts';
import { issuesToErrors } from './issues.ts';

/** Parses a document with `schema`, or throws validation_failed listing every issue at its JSON pointer. */
export function parseWith<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new DomainError('validation_failed', 'the request document is invalid; see errors', { errors: issuesToErrors(result.issues) });
}
