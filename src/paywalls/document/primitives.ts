import * as v from 'valibot';

/** Paywall, variant, audience, slot, string-key and node ids share one pattern. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Loose BCP 47: a language subtag then any subtags; enough to key a strings table, not a full grammar. */
const LOCALE_PATTERN = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export const IdSchema = v.pipe(
  v.string(),
  v.regex(ID_PATTERN, 'Must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit'),
);

export const LocaleSchema = v.pipe(
  v.string(),
  v.regex(LOCALE_PATTERN, 'Must be a language tag such as "en" or "pt-BR"'),
);

/** A picklist whose error names the allowed values, never the value received. */
export function oneOf<const T extends readonly string[]>(options: T) {
  return v.picklist(options, `Expected one of: ${options.join(', ')}`);
}
