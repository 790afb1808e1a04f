import * as v from 'valibot';
import { issuesToErrors } from './issues.ts';
import { ProblemError } from './problem.ts';
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

/** Parses `value` with `schema`, or throws the 422 problem listing every issue. */
export function parseWith<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new ProblemError(422, 'validation_failed', 'the request document is invalid; see errors', {
    errors: issuesToErrors(result.issues),
  });
}
