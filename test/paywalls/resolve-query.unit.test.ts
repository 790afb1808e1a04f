/**
 * The resolve query reader (src/paywalls/resolve/request.ts) scans the raw
 * query and checks rules read from SdkConfigQuerySchema instead of running
 * valibot on every request. These tests hold it to what it replaced: the
 * query parsed as URLSearchParams parses it, the first non-empty value of
 * each parameter (collectQueryParams), and valibot's verdict and issues
 * (parseQueryParams: 400 invalid_query).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v from 'valibot';
import { parseQuery } from '../../src/http/query.ts';
import { parameterRules } from '../../src/paywalls/resolve/query-rules.ts';
import { readResolveRequest } from '../../src/paywalls/resolve/request.ts';
import { SdkConfigQuerySchema } from '../../src/paywalls/resolve/schema.ts';
import { normalizeLocale, parseAcceptLanguage } from '../../src/paywalls/targeting/locale.ts';
import { DomainError } from '../../src/shared/errors.ts';
import { collectQueryParams, parseQueryParams } from '../../src/shared/query.ts';

/** A query and the Accept-Language header: what the reader reads of a request. */
function request(rawQuery: string, headers: Record<string, string> = {}): { rawQuery: string; acceptLanguage: string } {
  return { rawQuery, acceptLanguage: headers['accept-language'] ?? '' };
}

/** The reading it replaced: URLSearchParams pairs, the one rule for parameters (collectQueryParams), then valibot. */
function reference(req: { rawQuery: string; acceptLanguage: string }): unknown {
  try {
    const { params, prefixed: custom } = collectQueryParams(parseQuery(req.rawQuery), 'attr.');
    if (params.platform !== undefined) params.platform = params.platform.toLowerCase();
    const query = parseQueryParams(SdkConfigQuerySchema, params);
    const accept = req.acceptLanguage;
    const locales = query.locale !== undefined ? [query.locale] : accept === '' ? [] : parseAcceptLanguage(accept);
    const attributes: Record<string, unknown> = {};
    if (query.userId !== undefined) attributes.userId = query.userId;
    if (query.platform !== undefined) attributes.platform = query.platform;
    if (query.country !== undefined) attributes.country = query.country.toUpperCase();
    if (query.appVersion !== undefined) attributes.appVersion = query.appVersion;
    const locale = locales[0] === undefined ? undefined : (normalizeLocale(locales[0]) ?? locales[0]);
    if (locale !== undefined) attributes.locale = locale;
    if (custom) attributes.attr = custom;
    return {
      paywallId: query.paywallId,
      userId: query.userId,
      platform: query.platform,
      locales,
      localeParameter: query.locale !== undefined,
      attributes,
      explain: query.explain === '1',
    };
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, errors: error.errors };
    throw error;
  }
}

function read(req: { rawQuery: string; acceptLanguage: string }): unknown {
  try {
    return readResolveRequest(req.rawQuery, () => req.acceptLanguage);
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, errors: error.errors };
    throw error;
  }
}

test('the rules read from the schema: paywallId required, lengths, the platform picklist', () => {
  const rules = Object.fromEntries(parameterRules(SdkConfigQuerySchema).map((rule) => [rule.name, rule]));
  assert.deepEqual(rules.paywallId, { name: 'paywallId', required: true, maxLength: 64, options: undefined });
  assert.deepEqual(rules.userId, { name: 'userId', required: false, maxLength: 256, options: undefined });
  assert.deepEqual(rules.platform, { name: 'platform', required: false, maxLength: Number.POSITIVE_INFINITY, options: ['ios', 'android', 'web'] });
  assert.deepEqual(rules.explain, { name: 'explain', required: false, maxLength: Number.POSITIVE_INFINITY, options: ['0', '1'] });
  assert.deepEqual(Object.keys(rules), ['paywallId', 'userId', 'platform', 'locale', 'country', 'appVersion', 'explain']);
});

test('a schema with a rule the fast check does not know is refused at start', () => {
  assert.throws(() => parameterRules(v.object({ code: v.pipe(v.string(), v.regex(/^[a-z]+$/)) })), /regex is not supported/);
  assert.throws(() => parameterRules(v.object({ count: v.number() })), /number is not supported/);
  assert.throws(() => parameterRules(v.object({ code: v.optional(v.string(), 'x') })), /default value is not supported/);
});

test('fixed queries read as before: escapes, empty and repeated parameters, attributes, limits', () => {
  const long = (n: number) => 'a'.repeat(n);
  for (const raw of [
    'paywallId=onboarding&userId=u-1&platform=ios&locale=de-AT&country=us&appVersion=1.2.3',
    'paywallId=onboarding&userId=&userId=u-2&userId=u-3',
    'paywallId=&paywallId=onboarding&platform=iOS',
    'user%49d=u-4&paywall%49d=on%62oarding&locale=pt_BR',
    'paywallId=on+boarding&userId=J%C3%BCrgen&country=d%65',
    'paywallId=onboarding&attr.plan=pro&attr.plan=free&attr.=x&attr.__proto__=y&attr.empty=',
    'paywallId=onboarding&platform=tv',
    'paywallId=onboarding&explain=1',
    'paywallId=onboarding&explain=yes',
    'paywallId=onboarding&platform=',
    'userId=u-1',
    '',
    `paywallId=${long(64)}&userId=${long(256)}`,
    `paywallId=${long(65)}&userId=${long(257)}&locale=${long(257)}&country=${long(257)}&appVersion=${long(257)}`,
    'paywallId=onboarding&unknown=1&paywallId=other&=x&&userId',
    'paywallId=%zz&userId=%F0%9F%98%80',
  ]) {
    assert.deepEqual(read(request(raw)), reference(request(raw)), raw);
  }
  const accept = request('paywallId=onboarding', { 'accept-language': 'fr-CH, de;q=0.5' });
  assert.deepEqual(read(accept), reference(accept));
});

test('random queries read as before', () => {
  const names = [
    'paywallId',
    'userId',
    'platform',
    'locale',
    'country',
    'appVersion',
    'explain',
    'attr.plan',
    'attr.',
    'attr.__proto__',
    'user%49d',
    'platfor%6D',
    'other',
    '',
  ];
  const values = [
    '',
    'x',
    '0',
    '1',
    '2',
    'onboarding',
    'iOS',
    'android',
    'WEB',
    'tv',
    'de-AT',
    'en_gb',
    'J%C3%BCrgen',
    'a+b',
    '%zz',
    'a=b',
    'a'.repeat(64),
    'a'.repeat(65),
    'é'.repeat(256),
    'é'.repeat(257),
  ];
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  for (let n = 0; n < 5000; n++) {
    const pairs = Array.from({ length: random(8) }, () => {
      const name = names[random(names.length)]!;
      return random(10) === 0 ? name : `${name}=${values[random(values.length)]}`;
    });
    const raw = pairs.join('&');
    assert.deepEqual(read(request(raw)), reference(request(raw)), raw);
  }
});
