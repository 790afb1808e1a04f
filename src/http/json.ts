import * as v from 'valibot';
import { type FieldError, ProblemError } from './problem.ts';
import type { Request } from './request.ts';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The request body as JSON: 415 for another content type, 400 for bytes that are not UTF-8 JSON. */
export function readJson(req: Request): unknown {
  if (!JSON_MEDIA_TYPE.test(req.header('content-type'))) {
    throw new ProblemError(415, 'unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
  }
  let text: string;
  try {
    text = utf8.decode(req.body);
  } catch {
    throw new ProblemError(400, 'malformed_json', 'the request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProblemError(400, 'malformed_json', `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** RFC 6901 JSON pointer of a path of keys and indexes. */
export function pointer(path: readonly (string | number)[]): string {
  let out = '';
  for (const key of path) out += '/' + String(key).replaceAll('~', '~0').replaceAll('/', '~1');
  return out;
}

/**
 * Valibot's default messages quote the received value ("… but received
 * "secret-ish input""). Error bodies must never echo input back, so every
 * issue without a message of its own is described by what was expected.
 */
v.setGlobalMessage((issue) => {
  if (issue.type === 'strict_object' && issue.expected === 'never') return 'unknown property';
  if (issue.kind === 'schema' && issue.input === undefined) return `required: expected ${issue.expected}`;
  return issue.expected ? `expected ${issue.expected}` : `invalid ${issue.type.replaceAll('_', ' ')}`;
});

/** Valibot issues as `{path, message}` pairs. */
export function issuesToErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => ({
    path: pointer(issue.path?.map((item) => item.key as string | number) ?? []),
    message: issue.message,
  }));
}

/** Parses `value` with `schema`, or throws the 422 problem listing every issue. */
export function parseWith<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new ProblemError(422, 'validation_failed', 'the request document is invalid; see errors', {
    errors: issuesToErrors(result.issues),
  });
}
