import { collectQueryParams, parseQueryParams } from '../../shared/query.ts';
import type { Attributes } from '../targeting/condition.ts';
import { normalizeLocale, parseAcceptLanguage } from '../targeting/locale.ts';
import { type Platform, SdkConfigQuerySchema } from './schema.ts';

/** Who is asking for a paywall, as the compiled paywall needs it. */
export interface ResolveRequest {
  paywallId: string;
  userId: string | undefined;
  platform: Platform | undefined;
  /** The locales to try, most wanted first: the `locale` parameter, else the Accept-Language header. */
  locales: readonly string[];
  /** What audience conditions test: platform, country, locale, appVersion, userId and attr.NAME. */
  attributes: Attributes;
  /** explain=1: answer with how the variant and locale were chosen (a secret key only; see explain.ts). */
  explain: boolean;
}

const ATTR_PREFIX = 'attr.';
const NO_LOCALES: readonly string[] = [];

/**
 * Reads the query of GET /api/sdk/config (and Accept-Language when there is
 * no `locale`), by the one rule for query parameters; `attr.NAME` parameters
 * are the custom attributes, and `platform` is case-insensitive (`iOS`).
 */
export function readResolveRequest(pairs: Iterable<readonly [name: string, value: string]>, acceptLanguageHeader: string): ResolveRequest {
  const { params, prefixed: custom } = collectQueryParams(pairs, ATTR_PREFIX);
  if (params.platform !== undefined) params.platform = params.platform.toLowerCase();
  const query = parseQueryParams(SdkConfigQuerySchema, params);
  const locales = query.locale !== undefined ? [query.locale] : acceptLanguage(acceptLanguageHeader);
  const attributes: Record<string, unknown> = {};
  if (query.userId !== undefined) attributes.userId = query.userId;
  if (query.platform !== undefined) attributes.platform = query.platform;
  if (query.country !== undefined) attributes.country = query.country.toUpperCase();
  if (query.appVersion !== undefined) attributes.appVersion = query.appVersion;
  const locale = locales[0] === undefined ? undefined : (normalizeLocale(locales[0]) ?? locales[0]);
  if (locale !== undefined) attributes.locale = locale;
  if (custom) attributes.attr = custom;
  return { paywallId: query.paywallId, userId: query.userId, platform: query.platform, locales, attributes, explain: query.explain === '1' };
}

function acceptLanguage(header: string): readonly string[] {
  return header === '' ? NO_LOCALES : parseAcceptLanguage(header);
}
