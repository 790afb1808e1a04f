import { parseQueryParams } from '../../shared/query.ts';
import { decodeComponent } from '../../shared/query-component.ts';
import type { Attributes } from '../targeting/condition.ts';
import { normalizeLocale, parseAcceptLanguage } from '../targeting/locale.ts';
import { parameterRules, passes } from './query-rules.ts';
import { type Platform, SdkConfigQuerySchema } from './schema.ts';

/** Who is asking for a paywall, as the compiled paywall needs it. */
export interface ResolveRequest {
  paywallId: string;
  userId: string | undefined;
  platform: Platform | undefined;
  /** The locales to try, most wanted first: the `locale` parameter, else the Accept-Language header. */
  locales: readonly string[];
  /** The request named a locale itself (else Accept-Language, or nothing, chose). */
  localeParameter: boolean;
  /** What audience conditions test: platform, country, locale, appVersion, userId and attr.NAME. */
  attributes: Attributes;
  /** explain=1: answer with how the variant and locale were chosen (a secret key only; see explain.ts). */
  explain: boolean;
}

const ATTR_PREFIX = 'attr.';
const NO_LOCALES: readonly string[] = [];

const RULES = parameterRules(SdkConfigQuerySchema);
function slot(name: string): number {
  const index = RULES.findIndex((rule) => rule.name === name);
  if (index === -1) throw new Error(`SdkConfigQuerySchema has no parameter ${name}`);
  return index;
}

/** The rule whose name is text[start, end), -1 for none; compared in place, so a plain name is never copied. */
function ruleAt(text: string, start: number, end: number): number {
  for (let i = 0; i < RULES.length; i++) {
    const name = RULES[i]!.name;
    if (name.length === end - start && text.startsWith(name, start)) return i;
  }
  return -1;
}
/** A value per rule, none yet: copied per request, which costs less than building a new array. */
const NO_VALUES: (string | undefined)[] = RULES.map(() => undefined);
const PAYWALL_ID = slot('paywallId');
const USER_ID = slot('userId');
const PLATFORM = slot('platform');
const LOCALE = slot('locale');
const COUNTRY = slot('country');
const APP_VERSION = slot('appVersion');
const EXPLAIN = slot('explain');

/**
 * Reads the raw query (without `?`) of GET /api/sdk/config, and the
 * Accept-Language header when there is no `locale` (asked for only then). Empty parameters count as absent, because apps send `userId=`
 * for a signed-out user; the first non-empty occurrence of a parameter wins;
 * `platform` is case-insensitive (`iOS`); names and values are decoded as
 * URLSearchParams decodes them.
 *
 * This runs on every resolve request, so it scans the raw query once and
 * checks the values against the rules read from SdkConfigQuerySchema
 * (query-rules.ts) instead of running valibot; a query that breaks a rule is
 * handed to valibot (parseQueryParams), whose issues make the 400
 * invalid_query every endpoint answers for a bad query.
 */
export function readResolveRequest(raw: string, acceptLanguageHeader: () => string): ResolveRequest {
  const values = NO_VALUES.slice();
  let custom: Record<string, string> | undefined;
  // Most queries hold no escape at all: then no part needs decoding.
  const plain = raw.indexOf('%') === -1 && raw.indexOf('+') === -1;
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    const eq = raw.indexOf('=', start);
    // A pair without a value, or with an empty one, is absent (decoding never empties a non-empty text).
    if (eq !== -1 && eq < end - 1) {
      const name = plain ? undefined : decodeComponent(raw.slice(start, eq));
      const index = name === undefined ? ruleAt(raw, start, eq) : ruleAt(name, 0, name.length);
      if (index !== -1) {
        if (values[index] === undefined) {
          const value = plain ? raw.slice(eq + 1, end) : decodeComponent(raw.slice(eq + 1, end));
          values[index] = index === PLATFORM ? value.toLowerCase() : value;
        }
      } else if (name === undefined ? raw.startsWith(ATTR_PREFIX, start) : name.startsWith(ATTR_PREFIX)) {
        const attribute = name === undefined ? raw.slice(start + ATTR_PREFIX.length, eq) : name.slice(ATTR_PREFIX.length);
        if (attribute !== '') {
          // Without a prototype, a parameter such as `attr.__proto__` is just a name.
          custom ??= Object.create(null) as Record<string, string>;
          if (!Object.hasOwn(custom, attribute)) custom[attribute] = plain ? raw.slice(eq + 1, end) : decodeComponent(raw.slice(eq + 1, end));
        }
      }
    }
    start = end + 1;
  }
  if (!passes(RULES, values)) refuse(values);
  const paywallId = values[PAYWALL_ID]!;
  const userId = values[USER_ID];
  const platform = values[PLATFORM] as Platform | undefined;
  const country = values[COUNTRY];
  const appVersion = values[APP_VERSION];
  const requested = values[LOCALE];
  const locales = requested !== undefined ? [requested] : acceptLanguage(acceptLanguageHeader());
  const attributes: Record<string, unknown> = {};
  if (userId !== undefined) attributes.userId = userId;
  if (platform !== undefined) attributes.platform = platform;
  if (country !== undefined) attributes.country = country.toUpperCase();
  if (appVersion !== undefined) attributes.appVersion = appVersion;
  const locale = locales[0] === undefined ? undefined : (normalizeLocale(locales[0]) ?? locales[0]);
  if (locale !== undefined) attributes.locale = locale;
  if (custom) attributes.attr = custom;
  return { paywallId, userId, platform, locales, localeParameter: requested !== undefined, attributes, explain: values[EXPLAIN] === '1' };
}

/** The 400 invalid_query of a query that breaks a rule: parseQueryParams states the schema's issues. */
function refuse(values: readonly (string | undefined)[]): never {
  const query: Record<string, string> = Object.create(null);
  RULES.forEach((rule, i) => {
    if (values[i] !== undefined) query[rule.name] = values[i];
  });
  parseQueryParams(SdkConfigQuerySchema, query);
  // passes() and the schema disagree: a bug in query-rules.ts, which must not turn into a wrong answer.
  throw new Error('the resolve query failed the rules read from SdkConfigQuerySchema, yet the schema accepts it');
}

function acceptLanguage(header: string): readonly string[] {
  return header === '' ? NO_LOCALES : parseAcceptLanguage(header);
}
