import type { JsonValue } from '../shared/json.ts';
import { type EdgeErrorCode, ProblemError } from './problem.ts';
import type { Request } from './request.ts';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What readJson may answer. */
export const JSON_ERRORS: readonly EdgeErrorCode[] = ['unsupported_media_type', 'malformed_json'];

/** 415 unless the request says its body is JSON (readJson's first check, for routes whose handler parses the body later). */
export function requireJsonMediaType(req: Request): void {
  if (!JSON_MEDIA_TYPE.test(req.header('content-type'))) {
    throw new ProblemError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
  }
}

/** The request body as JSON: 415 for another content type, 400 for bytes that are not UTF-8 JSON. */
export function readJson(req: Request): JsonValue {
  requireJsonMediaType(req);
  let text: string;
  try {
    text = utf8.decode(req.body);
  } catch {
    throw new ProblemError('malformed_json', 'the request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the error, and error bodies never echo input: only its position is kept.
    // A body that stops early (cut off, or an empty one) has no position in V8's message: its end is where it fails.
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    if (position !== undefined) throw new ProblemError('malformed_json', `the request body is not valid JSON (at character ${position})`);
    if (/end of JSON input/.test(message)) {
      throw new ProblemError('malformed_json', `the request body is not valid JSON (at character ${text.length}: it ends before the JSON does)`);
    }
    throw new ProblemError('malformed_json', 'the request body is not valid JSON');
  }
}
