/**
 * The one id rule: paywall, product, variant, audience, slot, string-key and
 * node ids share it. No valibot here, so the dashboard's bundle can import it.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const ID_RULE = '1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit';
