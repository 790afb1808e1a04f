import * as v from 'valibot';

/** Paywall, product, variant, audience, slot, string-key and node ids share one pattern. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const ID_RULE = '1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit';

export const IdSchema = v.pipe(v.string(), v.regex(ID_PATTERN, `Must be ${ID_RULE}`));
