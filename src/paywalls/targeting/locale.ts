/**
 * Choosing a paywall's locale: BCP 47 tags normalised to their conventional
 * casing, RFC 4647 "lookup" fallback (de-AT → de), and the Accept-Language header.
 */

/** Tags paywalld accepts, after `_` → `-`: a 2–3 letter language, then subtags of 1–8 letters or digits. */
const TAG_SYNTAX = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * Norwegian is written as Bokmål (nb) or Nynorsk (nn); `no` is the
 * macrolanguage and in practice means Bokmål. Readers of either standard
 * prefer the other to a foreign language, so the chain continues no → nb.
 */
const NORWEGIAN_FALLBACKS = new Map<string, readonly string[]>([
  ['nb', ['no']],
  ['nn', ['no', 'nb']],
  ['no', ['nb']],
]);

const ACCEPT_LANGUAGE_MAX_ENTRIES = 10;

/** Distinct inputs remembered per function; past it the cache starts over rather than grow. */
const MEMO_LIMIT = 1024;

/**
 * Remembers a pure function of a string. Every resolve request runs the
 * locale functions on tags and headers that repeat across users (`de-AT`,
 * `en-US,en;q=0.9`); remembered, they cost a map lookup. Results are shared,
 * so they are read-only.
 */
function memoize<T>(compute: (input: string) => T): (input: string) => T {
  const cache = new Map<string, T>();
  return (input) => {
    let value = cache.get(input);
    if (value === undefined && !cache.has(input)) {
      if (cache.size >= MEMO_LIMIT) cache.clear();
      value = compute(input);
      cache.set(input, value);
    }
    return value as T;
  };
}
const Q_PARAMETER = /^\s*q\s*=(.*)$/i;
/** RFC 9110 §12.4.2 qvalue: 0 to 1 with at most three decimals. */
const QVALUE_SYNTAX = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * `tag` with `_` read as `-` and cased as BCP 47 recommends (language lower,
 * Script title case, REGION upper; subtags after an extension singleton
 * lower), or null when it is not a tag.
 */
export const normalizeLocale = memoize((tag: string): string | null => {
  const hyphenated = tag.replaceAll('_', '-');
  if (!TAG_SYNTAX.test(hyphenated)) return null;
  let inExtension = false;
  return hyphenated
    .split('-')
    .map((subtag, index) => {
      if (subtag.length === 1) inExtension = true;
      if (index === 0 || inExtension) return subtag.toLowerCase();
      if (/^[A-Za-z]{4}$/.test(subtag)) return subtag[0]!.toUpperCase() + subtag.slice(1).toLowerCase();
      if (subtag.length === 2) return subtag.toUpperCase();
      return subtag.toLowerCase();
    })
    .join('-');
});

/**
 * The tags to try for `requested`, most specific first: each shorter prefix
 * in turn (never one ending in a singleton, RFC 4647 §3.4), then the
 * Norwegian fallbacks. Empty for an invalid tag.
 */
export const localeChain = memoize((requested: string): readonly string[] => {
  const tag = normalizeLocale(requested);
  if (tag === null) return [];
  const subtags = tag.split('-');
  const chain: string[] = [];
  for (let length = subtags.length; length > 0; length--) {
    if (subtags[length - 1]!.length === 1) continue;
    chain.push(subtags.slice(0, length).join('-'));
  }
  for (const fallback of NORWEGIAN_FALLBACKS.get(subtags[0]!) ?? []) {
    if (!chain.includes(fallback)) chain.push(fallback);
  }
  return Object.freeze(chain);
});

/**
 * The first available tag in the chain of the first requested locale, then
 * of the second, and so on; `defaultLocale` when none is available.
 * `available` holds normalised tags.
 */
export function pickLocale(requestedList: readonly string[], available: ReadonlySet<string>, defaultLocale: string): string {
  for (const requested of requestedList) {
    for (const candidate of localeChain(requested)) {
      if (available.has(candidate)) return candidate;
    }
  }
  return defaultLocale;
}

/**
 * The normalised tags of an Accept-Language header, highest q first (ties in
 * header order), without duplicates, at most 10. `*`, q=0, invalid tags and
 * entries with a malformed q are dropped; no input makes it throw.
 */
export const parseAcceptLanguage = memoize((header: string): readonly string[] => {
  const weighted: { tag: string; quality: number }[] = [];
  for (const entry of header.split(',')) {
    const [range = '', ...parameters] = entry.split(';');
    const tag = normalizeLocale(range.trim());
    const quality = qualityOf(parameters);
    if (tag !== null && quality !== null && quality > 0) weighted.push({ tag, quality });
  }
  weighted.sort((a, b) => b.quality - a.quality); // Array#sort is stable

  const tags: string[] = [];
  for (const { tag } of weighted) {
    if (tags.includes(tag)) continue;
    tags.push(tag);
    if (tags.length === ACCEPT_LANGUAGE_MAX_ENTRIES) break;
  }
  return Object.freeze(tags);
});

/** The entry's q parameter: 1 when absent, null when malformed. */
function qualityOf(parameters: readonly string[]): number | null {
  for (const parameter of parameters) {
    const q = Q_PARAMETER.exec(parameter);
    if (q === null) continue;
    const text = q[1]!.trim();
    return QVALUE_SYNTAX.test(text) ? Number(text) : null;
  }
  return 1;
}
