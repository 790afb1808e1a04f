import type * as v from 'valibot';
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

/** What every request that resolves for a user says of them, whatever it asks for (a paywall, a placement). */
export type RequestAttributes = Omit<ResolveRequest, 'paywallId'>;

/**
 * Builds an endpoint's request from the id it asks for and what the query
 * says of the user, as one object literal of that endpoint's shape (the
 * fields one by one: the hot path builds no intermediate object).
 */
type Assemble<T> = (
  id: string,
  userId: string | undefined,
  platform: Platform | undefined,
  locales: readonly string[],
  localeParameter: boolean,
  attributes: Attributes,
  explain: boolean,
) => T;

/**
 * The reader of one endpoint's query, its rules read from its schema
 * (query-rules.ts): `idName` names the required parameter saying what is
 * asked for (`paywallId`, or `placement` for GET /api/sdk/placement); the
 * other parameters are /api/sdk/config's, read alike.
 */
export class RequestReader<T> {
  private readonly rules;
  /** A value per rule, none yet: copied per request, which costs less than building a new array. */
  private readonly noValues: (string | undefined)[];
  private readonly id;
  private readonly userId;
  private readonly platform;
  private readonly locale;
  private readonly country;
  private readonly appVersion;
  private readonly explain;

  constructor(
    private readonly schema: v.GenericSchema & { entries: Record<string, v.GenericSchema> },
    idName: string,
    private readonly assemble: Assemble<T>,
  ) {
    this.rules = parameterRules(schema);
    this.noValues = this.rules.map(() => undefined);
    const slot = (name: string) => {
      const index = this.rules.findIndex((rule) => rule.name === name);
      if (index === -1) throw new Error(`the query schema has no parameter ${name}`);
      return index;
    };
    this.id = slot(idName);
    this.userId = slot('userId');
    this.platform = slot('platform');
    this.locale = slot('locale');
    this.country = slot('country');
    this.appVersion = slot('appVersion');
    this.explain = slot('explain');
  }

  /** The rule whose name is text[start, end), -1 for none; compared in place, so a plain name is never copied. */
  private ruleAt(text: string, start: number, end: number): number {
    const rules = this.rules;
    for (let i = 0; i < rules.length; i++) {
      const name = rules[i]!.name;
      if (name.length === end - start && text.startsWith(name, start)) return i;
    }
    return -1;
  }

  /**
   * Reads the raw query (without `?`), and the Accept-Language header when
   * there is no `locale` (asked for only then). Empty parameters count as
   * absent, because apps send `userId=` for a signed-out user; the first
   * non-empty occurrence of a parameter wins; `platform` is case-insensitive
   * (`iOS`); names and values are decoded as URLSearchParams decodes them.
   *
   * This runs on every resolve request, so it scans the raw query once and
   * checks the values against the rules read from the schema instead of
   * running valibot; a query that breaks a rule is handed to valibot
   * (parseQueryParams), whose issues make the 400 invalid_query every
   * endpoint answers for a bad query.
   */
  read(raw: string, acceptLanguageHeader: () => string): T {
    const values = this.noValues.slice();
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
        const index = name === undefined ? this.ruleAt(raw, start, eq) : this.ruleAt(name, 0, name.length);
        if (index !== -1) {
          if (values[index] === undefined) {
            const value = plain ? raw.slice(eq + 1, end) : decodeComponent(raw.slice(eq + 1, end));
            values[index] = index === this.platform ? value.toLowerCase() : value;
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
    if (!passes(this.rules, values)) this.refuse(values);
    const userId = values[this.userId];
    const platform = values[this.platform] as Platform | undefined;
    const country = values[this.country];
    const appVersion = values[this.appVersion];
    const requested = values[this.locale];
    const locales = requested !== undefined ? [requested] : acceptLanguage(acceptLanguageHeader());
    const attributes: Record<string, unknown> = {};
    if (userId !== undefined) attributes.userId = userId;
    if (platform !== undefined) attributes.platform = platform;
    if (country !== undefined) attributes.country = country.toUpperCase();
    if (appVersion !== undefined) attributes.appVersion = appVersion;
    const locale = locales[0] === undefined ? undefined : (normalizeLocale(locales[0]) ?? locales[0]);
    if (locale !== undefined) attributes.locale = locale;
    if (custom) attributes.attr = custom;
    return this.assemble(values[this.id]!, userId, platform, locales, requested !== undefined, attributes, values[this.explain] === '1');
  }

  /** The 400 invalid_query of a query that breaks a rule: parseQueryParams states the schema's issues. */
  private refuse(values: readonly (string | undefined)[]): never {
    const query: Record<string, string> = Object.create(null);
    this.rules.forEach((rule, i) => {
      if (values[i] !== undefined) query[rule.name] = values[i];
    });
    parseQueryParams(this.schema, query);
    // passes() and the schema disagree: a bug in query-rules.ts, which must not turn into a wrong answer.
    throw new Error('the query failed the rules read from its schema, yet the schema accepts it');
  }
}

const CONFIG_QUERY = new RequestReader(
  SdkConfigQuerySchema,
  'paywallId',
  (paywallId, userId, platform, locales, localeParameter, attributes, explain): ResolveRequest => ({
    paywallId,
    userId,
    platform,
    locales,
    localeParameter,
    attributes,
    explain,
  }),
);

/** Reads the query of GET /api/sdk/config (RequestReader.read). */
export function readResolveRequest(raw: string, acceptLanguageHeader: () => string): ResolveRequest {
  return CONFIG_QUERY.read(raw, acceptLanguageHeader);
}

function acceptLanguage(header: string): readonly string[] {
  return header === '' ? NO_LOCALES : parseAcceptLanguage(header);
}
