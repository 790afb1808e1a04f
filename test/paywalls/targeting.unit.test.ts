import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { RE2JS } from 're2js';
import { type Condition, compileCondition, evalCondition, validateCondition } from '../../src/paywalls/targeting/condition.ts';
import {
  assignBucket,
  assignBucketAfter,
  chooseVariation,
  getBucketRanges,
  hash,
  pickByWeights,
  seedHash,
  type VariationRange,
} from '../../src/paywalls/targeting/hash.ts';
import { localeChain, normalizeLocale, parseAcceptLanguage, pickLocale } from '../../src/paywalls/targeting/locale.ts';
import { compareVersions } from '../../src/paywalls/targeting/version.ts';

/** The keys of GrowthBook's cases.json (spec 0.5.4) this module conforms to. */
interface GrowthBookCases {
  specVersion: string;
  hash: [seed: string, value: string, version: number, expected: number | null][];
  getBucketRange: [name: string, args: [number, number, number[] | null], expected: VariationRange[]][];
  chooseVariation: [name: string, n: number, ranges: VariationRange[], expected: number][];
  evalCondition: [name: string, condition: Condition, attributes: Record<string, unknown>, expected: boolean][];
  versionCompare: Record<'lt' | 'gt' | 'eq', [a: string, b: string, expected: boolean][]>;
}

const cases = JSON.parse(fs.readFileSync(new URL('../vectors/growthbook-cases.json', import.meta.url), 'utf8')) as GrowthBookCases;

/** Operators in the vectors that paywalld does not implement; their cases are filtered out. */
const UNSUPPORTED_OPERATORS: readonly string[] = [];
const EXPECTED_FILTERED_OUT = 0;

function usesOperator(node: unknown, operators: readonly string[]): boolean {
  if (Array.isArray(node)) return node.some((item) => usesOperator(item, operators));
  if (typeof node !== 'object' || node === null) return false;
  return Object.entries(node).some(([key, value]) => operators.includes(key) || usesOperator(value, operators));
}

// GrowthBook's own test rounds bucket ranges down to 8 decimals on both sides.
const round = (n: number) => Math.floor(n * 1e8) / 1e8;
const roundRanges = (ranges: readonly VariationRange[]) => ranges.map(([start, end]) => [round(start), round(end)]);

describe('GrowthBook conformance vectors', () => {
  test('are spec 0.5.4', () => assert.equal(cases.specVersion, '0.5.4'));

  describe('hash', () => {
    cases.hash.forEach(([seed, value, version, expected], index) => {
      test(`hash[${index}] hash(${JSON.stringify(seed)}, ${JSON.stringify(value)}, ${version})`, () => {
        assert.equal(hash(seed, value, version), expected);
      });
    });
  });

  describe('getBucketRanges', () => {
    cases.getBucketRange.forEach(([name, [numVariations, coverage, weights], expected], index) => {
      test(`getBucketRange[${index}] ${name}`, () => {
        assert.deepEqual(roundRanges(getBucketRanges(numVariations, coverage, weights ?? undefined)), roundRanges(expected));
      });
    });
  });

  describe('chooseVariation', () => {
    cases.chooseVariation.forEach(([name, n, ranges, expected], index) => {
      test(`chooseVariation[${index}] ${name}`, () => assert.equal(chooseVariation(n, ranges), expected));
    });
  });

  describe('versionCompare', () => {
    // The same assertions as GrowthBook's test, made on compareVersions' sign.
    cases.versionCompare.eq.forEach(([a, b, expected], index) => {
      test(`versionCompare.eq[${index}] ${a} === ${b}`, () => {
        assert.equal(compareVersions(a, b) === 0, expected);
        assert.equal(compareVersions(a, b) >= 0, expected);
        assert.equal(compareVersions(a, b) <= 0, expected);
      });
    });
    cases.versionCompare.gt.forEach(([a, b, expected], index) => {
      test(`versionCompare.gt[${index}] ${a} > ${b}`, () => {
        assert.equal(compareVersions(a, b) > 0, expected);
        assert.equal(compareVersions(a, b) >= 0, expected);
      });
    });
    cases.versionCompare.lt.forEach(([a, b, expected], index) => {
      test(`versionCompare.lt[${index}] ${a} < ${b}`, () => {
        assert.equal(compareVersions(a, b) < 0, expected);
        assert.equal(compareVersions(a, b) <= 0, expected);
      });
    });
  });

  describe('evalCondition', () => {
    const supported = cases.evalCondition.filter(([, condition]) => !usesOperator(condition, UNSUPPORTED_OPERATORS));

    test('filters out exactly the cases of unsupported operators', () => {
      assert.equal(cases.evalCondition.length - supported.length, EXPECTED_FILTERED_OUT);
    });

    supported.forEach(([name, condition, attributes, expected], index) => {
      test(`evalCondition[${index}] ${name}`, () => {
        assert.equal(evalCondition(attributes, condition), expected);
      });
    });

    // Guards validateCondition against rejecting well-formed GrowthBook conditions.
    test('validateCondition flags exactly the malformed vector conditions', () => {
      const flagged = cases.evalCondition.filter(([, condition]) => validateCondition(condition).length > 0).map(([name]) => name);
      assert.deepEqual(flagged, ['$in - not array', '$nin - not array', 'unknown operator - pass', '$regex invalid - pass', '$regex invalid - fail']);
    });
  });
});

describe('assignBucket', () => {
  const userIds = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);

  /** GrowthBook's hash v2, transcribed naively: string concatenation and floating-point scaling. */
  function referenceHashV2(seed: string, value: string): number {
    const fnv = (text: string) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h += (h << 1) + (h << 4) + (h << 7) + (h << 8) + (h << 24);
      }
      return h >>> 0;
    };
    return (fnv(`${fnv(seed + value)}`) % 10000) / 10000;
  }

  test('is an integer in [0, 10000) that hash v2 scales by 1/10000 exactly', () => {
    for (const id of userIds) {
      const bucket = assignBucket('paywall-7', id);
      assert.ok(Number.isInteger(bucket) && bucket >= 0 && bucket < 10_000, `${id} → ${bucket}`);
      assert.equal(bucket / 10_000, referenceHashV2('paywall-7', id));
      assert.equal(hash('paywall-7', id, 2), referenceHashV2('paywall-7', id));
    }
  });

  test('with the seed hashed ahead (seedHash, assignBucketAfter) it is the same bucket', () => {
    for (const seed of ['paywall-7', '', 'pä¥wall-😀', 'x'.repeat(300)]) {
      const state = seedHash(seed);
      for (const id of [...userIds.slice(0, 2_000), '', 'Jürgen', '😀-user', 'u'.repeat(256)]) {
        const bucket = assignBucketAfter(state, id);
        assert.equal(bucket, assignBucket(seed, id), `${seed} + ${id}`);
        assert.equal(bucket / 10_000, referenceHashV2(seed, id), `${seed} + ${id}`);
      }
    }
  });

  test('is deterministic and depends on the seed', () => {
    assert.equal(assignBucket('paywall-7', 'user-42'), assignBucket('paywall-7', 'user-42'));
    const moved = userIds.filter((id) => assignBucket('paywall-7', id) !== assignBucket('paywall-8', id));
    assert.ok(moved.length > 9_900, `only ${moved.length} buckets changed with the seed`);
  });
});

describe('pickByWeights', () => {
  test('splits 10,000 users 50/50 within ±2%', () => {
    const counts = [0, 0];
    for (let i = 0; i < 10_000; i++) counts[pickByWeights(assignBucket('paywall-7', `user-${i}`), [50, 50])]! += 1;
    for (const count of counts) assert.ok(count >= 4_800 && count <= 5_200, `split ${counts.join('/')}`);
  });

  test('normalises any integer sum onto the 10,000 buckets', () => {
    assert.deepEqual(
      [0, 2_499, 2_500, 7_499, 7_500, 9_999].map((bucket) => pickByWeights(bucket, [1, 2, 1])),
      [0, 0, 1, 1, 2, 2],
    );
    // 10000/3 = 3333.33…: bucket 3333 starts inside the first third.
    assert.deepEqual(
      [3_333, 3_334, 9_999].map((bucket) => pickByWeights(bucket, [1, 2])),
      [0, 1, 1],
    );
    assert.equal(pickByWeights(9_999, [7]), 0);
  });

  test('never gives traffic to a weight of 0', () => {
    for (let bucket = 0; bucket < 10_000; bucket++) {
      assert.notEqual(pickByWeights(bucket, [0, 3, 0, 5, 0]) % 2, 0, `bucket ${bucket}`);
    }
  });

  test('is -1 when every weight is 0 or there are none', () => {
    assert.equal(pickByWeights(0, [0, 0]), -1);
    assert.equal(pickByWeights(0, []), -1);
  });
});

describe('validateCondition', () => {
  const paths = (condition: unknown) => validateCondition(condition).map((problem) => problem.path);

  test('accepts a well-formed condition', () => {
    assert.deepEqual(
      validateCondition({
        country: { $in: ['DE', 'AT'] },
        'app.version': { $vgte: '2.1.0' },
        $or: [{ plan: 'free' }, { trialDays: { $lt: 3 } }],
        $not: { tags: { $elemMatch: { $regex: '^beta' } } },
      }),
      [],
    );
  });

  test('a condition that is not an object', () => {
    assert.deepEqual(validateCondition('country'), [{ path: '', message: 'needs a condition object' }]);
    assert.deepEqual(paths({ $and: [{ a: 1 }, 7] }), ['/$and/1']);
  });

  test('an unknown operator', () => {
    assert.deepEqual(validateCondition({ country: { $regx: 'DE' } }), [{ path: '/country/$regx', message: 'unknown operator' }]);
  });

  test('$and, $or and $nor without an array', () => {
    assert.deepEqual(paths({ $and: { a: 1 }, $or: 'a', $nor: null }), ['/$and', '/$or', '/$nor']);
  });

  test('$not without a condition', () => {
    assert.deepEqual(paths({ $not: [{ a: 1 }] }), ['/$not']);
  });

  test('$in and $nin without an array', () => {
    assert.deepEqual(paths({ country: { $in: 'DE' }, plan: { $nin: 1 } }), ['/country/$in', '/plan/$nin']);
  });

  test('an invalid regex', () => {
    assert.deepEqual(paths({ country: { $regex: '(DE|AT' } }), ['/country/$regex']);
    assert.deepEqual(paths({ country: { $regex: 7 } }), ['/country/$regex']);
  });

  test('operands of the wrong type', () => {
    assert.deepEqual(
      paths({
        a: { $eq: { x: 1 } },
        b: { $gt: [1] },
        c: { $vlt: true },
        d: { $exists: 'yes' },
        e: { $type: 'int' },
        f: { $size: '3' },
        g: { $elemMatch: 'x' },
        h: { $all: 'x' },
      }),
      ['/a/$eq', '/b/$gt', '/c/$vlt', '/d/$exists', '/e/$type', '/f/$size', '/g/$elemMatch', '/h/$all'],
    );
  });

  test('nested problems inside $not, $size, $all and $elemMatch', () => {
    assert.deepEqual(
      paths({
        a: { $not: { $in: 1 } },
        b: { $size: { $gt: null } },
        c: { $all: ['x', { $regex: '[' }] },
        d: { $elemMatch: { name: { $regex: '[' } } },
      }),
      ['/a/$not/$in', '/b/$size/$gt', '/c/$all/1/$regex', '/d/$elemMatch/name/$regex'],
    );
  });

  test('a value operator used as a condition key', () => {
    assert.deepEqual(paths({ $in: ['DE'] }), ['/$in']);
  });

  test('a list operator used on a value', () => {
    assert.deepEqual(paths({ country: { $or: [{ $eq: 'DE' }] } }), ['/country/$or']);
  });

  test('operators mixed with plain keys', () => {
    assert.deepEqual(paths({ country: { $in: ['DE'], name: 'x' } }), ['/country/$in']);
  });

  test('escapes ~ and / in paths (RFC 6901)', () => {
    assert.deepEqual(paths({ 'a/b~c': { $in: 1 } }), ['/a~1b~0c/$in']);
  });
});

describe('compileCondition', () => {
  test('compiles once and evaluates many attribute sets', () => {
    const isMobileInDach = compileCondition({ country: { $in: ['DE', 'AT', 'CH'] }, 'device.ua': { $regex: 'Mobile' } });
    assert.equal(isMobileInDach({ country: 'DE', device: { ua: 'Android Mobile' } }), true);
    assert.equal(isMobileInDach({ country: 'FR', device: { ua: 'Android Mobile' } }), false);
    assert.equal(isMobileInDach({ country: 'AT', device: { ua: 'Desktop' } }), false);
    assert.equal(isMobileInDach({ country: 'CH' }), false);
  });

  test('builds each regex once, not per evaluation', () => {
    const compile = RE2JS.compile;
    let constructed = 0;
    RE2JS.compile = (...args: Parameters<typeof compile>) => {
      constructed += 1;
      return compile(...args);
    };
    try {
      const isMobile = compileCondition({ ua: { $regex: 'Mobile' } });
      for (let i = 0; i < 100; i++) assert.equal(isMobile({ ua: i % 2 ? 'Mobile' : 'Desktop' }), i % 2 === 1);
    } finally {
      RE2JS.compile = compile;
    }
    assert.equal(constructed, 1);
  });

  test('an invalid regex, or any malformed part, matches nothing', () => {
    assert.equal(compileCondition({ name: { $regex: '(' } })({ name: '(' }), false);
    assert.equal(compileCondition({ $or: { name: 'x' } })({ name: 'x' }), false);
    assert.equal(compileCondition({ $not: 'x' })({}), false);
  });

  test('follows only own properties on dotted paths', () => {
    assert.equal(evalCondition({ name: 'x' }, { 'name.length': 1 }), false);
    assert.equal(evalCondition({ user: {} }, { 'user.constructor': { $exists: true } }), false);
    assert.equal(evalCondition({ tags: ['a', 'b'] }, { 'tags.length': 2, 'tags.1': 'b' }), true);
  });
});

describe('locales', () => {
  test('normalizeLocale cases tags as BCP 47 and rejects non-tags', () => {
    assert.equal(normalizeLocale('ZH_hant_tw'), 'zh-Hant-TW');
    assert.equal(normalizeLocale('en-us'), 'en-US');
    assert.equal(normalizeLocale('es-419'), 'es-419');
    assert.equal(normalizeLocale('de-DE-U-CO-PHONEBK'), 'de-DE-u-co-phonebk');
    for (const invalid of ['', '*', 'e', 'english', 'de-', 'de--AT', 'de AT', 'de-toolongsubtag', 'x-private']) {
      assert.equal(normalizeLocale(invalid), null, invalid);
    }
  });

  test('localeChain falls back one subtag at a time', () => {
    assert.deepEqual(localeChain('de-AT'), ['de-AT', 'de']);
    assert.deepEqual(localeChain('zh_hant_tw'), ['zh-Hant-TW', 'zh-Hant', 'zh']);
    assert.deepEqual(localeChain('de-DE-u-co-phonebk'), ['de-DE-u-co-phonebk', 'de-DE-u-co', 'de-DE', 'de']);
    assert.deepEqual(localeChain('not a tag'), []);
  });

  test('localeChain links the Norwegian tags', () => {
    assert.deepEqual(localeChain('nb-NO'), ['nb-NO', 'nb', 'no']);
    assert.deepEqual(localeChain('nn'), ['nn', 'no', 'nb']);
    assert.deepEqual(localeChain('no'), ['no', 'nb']);
  });

  test('pickLocale walks each requested chain in order, then the default', () => {
    const available = new Set(['en', 'de', 'fr-CA', 'nb']);
    assert.equal(pickLocale(['de-AT', 'fr-CA'], available, 'en'), 'de');
    assert.equal(pickLocale(['fr', 'fr-CA'], available, 'en'), 'fr-CA');
    assert.equal(pickLocale(['no'], available, 'en'), 'nb');
    assert.equal(pickLocale(['ja', 'garbage!'], available, 'en'), 'en');
    assert.equal(pickLocale([], available, 'en'), 'en');
  });

  test('parseAcceptLanguage orders by q and drops *, q=0 and garbage', () => {
    assert.deepEqual(parseAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5'), ['fr-CH', 'fr', 'en', 'de']);
    assert.deepEqual(parseAcceptLanguage('en;q=0.1, de_at;q=0.9, it; q=0, es'), ['es', 'de-AT', 'en']);
    assert.deepEqual(parseAcceptLanguage('en;q=2, de;q=abc, fr;Q=0.5 , x'), ['fr']);
    assert.deepEqual(parseAcceptLanguage('en, en;q=0.5, EN-gb'), ['en', 'en-GB']);
    for (const garbage of ['', ',,,;;;', ';q=1', '\u0000\uffff', 'q=0.5', '*']) {
      assert.deepEqual(parseAcceptLanguage(garbage), [], JSON.stringify(garbage));
    }
  });

  test('parseAcceptLanguage keeps at most 10 entries', () => {
    const languages = Array.from({ length: 15 }, (_, i) => `l${String.fromCharCode(0x61 + i)}`); // la … lo
    const header = languages.map((tag, i) => `${tag};q=0.${10 + i}`).join(', '); // q rises along the header
    assert.deepEqual(parseAcceptLanguage(header), languages.slice(5).reverse());
  });
});
