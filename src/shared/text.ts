/**
 * The rule for client text stored in a text column (not inside serialized
 * JSON, where JSON.stringify escapes both): well-formed UTF-16 without NUL.
 * PostgreSQL refuses a NUL in text (the whole statement fails), and a lone
 * surrogate is replaced by U+FFFD on the way into either database while the
 * in-memory state keeps it, so such text would be one thing before a restart
 * and another after. Refused at the edge instead, with the field's own code.
 */
import * as v from 'valibot';

/**
 * Any UTF-16 unit but NUL and surrogates, or a high surrogate followed by a
 * low one. One definition for the schemas, the fast event parser and the
 * OpenAPI document (as `pattern`): it holds with and without the `u` flag
 * (with it, a pair is one code point and a lone surrogate one the first class
 * refuses). String.prototype.isWellFormed (Node 20) says the same less NUL,
 * but TypeScript's ES2022 library does not know it, and a second definition
 * could drift from this one.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what the rule refuses.
const STORABLE_TEXT = /^(?:[^\u0000\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

const STORABLE_TEXT_RULE = 'must be well-formed Unicode text without NUL (U+0000) or a lone surrogate';

/** Whether a string may be stored in a text column. */
export function isStorableText(value: string): boolean {
  return STORABLE_TEXT.test(value);
}

/** The valibot action every schema pipes a stored string through. */
export const storableText = () => v.regex<string, string>(STORABLE_TEXT, STORABLE_TEXT_RULE);
