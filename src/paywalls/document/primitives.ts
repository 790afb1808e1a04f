import * as v from 'valibot';

/** Loose BCP 47: a language subtag then any subtags; enough to key a strings table, not a full grammar. */
const LOCALE_PATTERN = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export const LocaleSchema = v.pipe(v.string(), v.regex(LOCALE_PATTERN, 'Must be a language tag such as "en" or "pt-BR"'));

/** A picklist whose error names the allowed values, never the value received. */
export function oneOf<const T extends readonly string[]>(options: T) {
  return v.picklist(options, `Expected one of: ${options.join(', ')}`);
}
