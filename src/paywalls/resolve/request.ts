import * as v from 'valibot';
import { issuesToErrors } from '../../http/issues.ts';
import { ProblemError } from '../../http/problem.ts';
import type { Request } from '../../http/request.ts';
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
 * no `locale`). Empty parameters count as absent, because apps send `userId=`
 * for a signed-out user; `platform` is case-insensitive (`iOS`).
 */
export function readResolveRequest(req: Request): ResolveRequest {
  // Without a prototype, a parameter such as `attr.__proto__` is just a name.
  const raw: Record<string, string> = Object.create(null);
  let custom: Record<string, string> | undefined;
  for (const [name, value] of req.query()) {
    if (value === '') continue;
    if (name.startsWith(ATTR_PREFIX)) {
      const attribute = name.slice(ATTR_PREFIX.length);
      custom ??= Object.create(null) as Record<string, string>;
      if (attribute !== '' && !Object.hasOwn(custom, attribute)) custom[attribute] = value;
    } else if (!Object.hasOwn(raw, name)) {
      raw[name] = name === 'platform' ? value.toLowerCase() : value;
    }
  }
  const parsed = v.safeParse(SdkConfigQuerySchema, raw);
  if (!parsed.success) {
    throw new ProblemError(422, 'validation_failed', 'the query parameters are invalid; see errors', {
      errors: issuesToErrors(parsed.issues),
    });
  }
  const query = parsed.output;
  const locales = query.locale !== undefined ? [query.locale] : acceptLanguage(req.header('accept-language'));
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
