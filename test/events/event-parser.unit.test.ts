/**
 * The written-out event check (src/events/event-parser.ts) against
 * EventSchema over generated events: every event is accepted exactly when
 * the schema accepts it, with the schema's output, and refused with the
 * schema's issue; and every event the schema accepts takes the fast path.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as v from 'valibot';
import { fastEvent, parseEvent } from '../../src/events/event-parser.ts';
import { describeIssue, EventSchema, MAX_PROPERTIES_BYTES } from '../../src/events/schema.ts';

const RUNS = 20_000;

/** Text within its limits, in characters of 1 to 4 UTF-8 bytes (a surrogate pair counts 2 towards the limit). */
const validText = (max: number) =>
  fc.oneof(fc.string({ minLength: 1, maxLength: max }), fc.string({ minLength: 1, maxLength: Math.floor(max / 2), unit: 'binary' }));
/** UTF-16 units no stored text may hold alone: NUL and each kind of surrogate; a pair of them may still form a well-formed character. */
const unstorableUnit = fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00');
/** Text around its limits, and text holding NUL or lone surrogates (or surrogates that happen to pair up). */
const edgeText = (max: number) =>
  fc.oneof(
    fc.constantFrom('', 'a', 'x'.repeat(max), 'x'.repeat(max + 1), 'é'.repeat(max), '😀'.repeat(Math.floor(max / 2)), '😀'.repeat(Math.ceil((max + 1) / 2))),
    fc.constantFrom('\u0000', 'a\u0000b', 'a\ud800b', '\udc00', '\ud83d', '😀\ud800', '\ude00\ud83d', `${'x'.repeat(max - 1)}\u0000`),
    fc.string({ maxLength: max + 2, unit: 'binary' }),
    fc.string({ minLength: 1, maxLength: 8, unit: fc.oneof(unstorableUnit, fc.constantFrom('a', 'é', '😀')) }),
  );
const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constant([]), fc.constant({}), fc.string({ maxLength: 4 }));
/** A field's value: mostly valid, sometimes at or past a limit, of the wrong kind, null, or left out (undefined drops the key). */
const field = (valid: fc.Arbitrary<unknown>, edge: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 40, arbitrary: valid }, { weight: 1, arbitrary: edge }, { weight: 1, arbitrary: junk }, { weight: 3, arbitrary: fc.constant(undefined) });

const nested = fc.jsonValue({ maxDepth: 3 });
const edgeProperties = fc.oneof(
  // Around the byte limit, in one- and three-byte characters.
  fc.integer({ min: MAX_PROPERTIES_BYTES - 12, max: MAX_PROPERTIES_BYTES + 2 }).map((n) => ({ s: 'a'.repeat(n - 8) })),
  fc.integer({ min: Math.floor(MAX_PROPERTIES_BYTES / 3) - 4, max: Math.floor(MAX_PROPERTIES_BYTES / 3) + 2 }).map((n) => ({ s: '€'.repeat(n - 3) })),
  fc.constant([1, 2]),
);

const event = fc
  .record(
    {
      type: field(
        fc.oneof(fc.constantFrom('screen_impression', 'purchase_complete', 'constructor'), fc.stringMatching(/^[a-z][a-z0-9_]{0,63}$/)),
        fc.oneof(fc.constantFrom('a', 'A', '1x', `a${'b'.repeat(63)}`, `a${'b'.repeat(64)}`, 'a\n'), fc.string({ maxLength: 6 })),
      ),
      paywall_id: field(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
        fc.oneof(fc.constantFrom('-x', 'a'.repeat(64), 'a'.repeat(65), 'pw ', 'pw\n'), fc.string({ maxLength: 6 })),
      ),
      ts: field(
        fc.integer({ min: 1, max: 1e14 - 1 }),
        fc.oneof(
          fc.constantFrom(1, 1e11 - 1, 1e11, 1e14 - 1, 1e14, 0, -1, 1_767_225_600.5, Number.MAX_SAFE_INTEGER),
          fc.integer({ min: -10, max: 2 ** 53 - 1 }),
          fc.double(),
        ),
      ),
      id: field(validText(64), edgeText(64)),
      user_id: field(validText(256), edgeText(256)),
      variant_id: field(validText(64), edgeText(64)),
      product_id: field(validText(256), edgeText(256)),
      audience: field(validText(64), edgeText(64)),
      revenue: field(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), fc.oneof(fc.constantFrom(0, -0, -0.01, 1e308), fc.double())),
      currency: field(fc.stringMatching(/^[A-Z]{3}$/), fc.oneof(fc.constantFrom('eur', 'EU', 'EURO', 'EUR '), fc.string({ maxLength: 4 }))),
      // Mostly absent or valid: one more field of `field`'s odds would leave too few events accepted.
      placement: fc.oneof(
        { weight: 30, arbitrary: fc.constant(undefined) },
        { weight: 30, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/) },
        { weight: 1, arbitrary: fc.oneof(fc.constantFrom('-x', 'a'.repeat(65), 'p\n', null), junk) },
      ),
      properties: field(fc.dictionary(fc.string({ maxLength: 8 }), nested, { maxKeys: 6 }), edgeProperties),
      // Keys the schema does not know, spelled like object internals too.
      unknown: fc.oneof(
        { weight: 20, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('extra', '__proto__', 'constructor', 'toString') },
      ),
    },
    { requiredKeys: [] },
  )
  .map(({ unknown, ...fields }) => {
    // Through JSON, as the server receives events: undefined fields drop out, "__proto__" becomes an own key.
    const json = JSON.stringify(fields);
    return JSON.parse(unknown === undefined ? json : `${json.slice(0, -1)}${json === '{}' ? '' : ','}${JSON.stringify(unknown)}:1}`) as unknown;
  });

function schemaAnswer(input: unknown) {
  const result = v.safeParse(EventSchema, input, { abortEarly: true });
  return result.success ? { success: true, output: result.output } : { success: false, issue: describeIssue(result.issues[0]) };
}

test('every generated event is accepted exactly when EventSchema accepts it, with its output, and refused with its issue', () => {
  let accepted = 0;
  fc.assert(
    fc.property(event, (input) => {
      const expected = schemaAnswer(input);
      const parsed = parseEvent(input);
      const answer = parsed.success ? { success: true, output: parsed.output } : { success: false, issue: describeIssue(parsed.issue) };
      assert.deepStrictEqual(answer, expected);
      // The schema's acceptances all take the written-out path (no valibot run per valid event).
      if (expected.success) {
        accepted++;
        assert.deepStrictEqual(fastEvent(input), expected.output);
      } else assert.equal(fastEvent(input), undefined);
    }),
    { numRuns: RUNS },
  );
  // The generator reaches both sides.
  assert.ok(accepted > RUNS / 5 && accepted < RUNS - RUNS / 5, `${accepted} of ${RUNS} accepted`);
});

test('values no JSON body holds go to the schema: non-plain objects, arrays, inherited keys', () => {
  const valid = { type: 'screen_impression', paywall_id: 'pw', ts: 1_767_225_600_000 };
  for (const input of [Object.assign(Object.create(null), valid), Object.create(valid), [valid], new Map(), null, 'event', 42]) {
    assert.equal(fastEvent(input), undefined);
    assert.deepStrictEqual(parseEvent(input).success, v.safeParse(EventSchema, input).success);
  }
  assert.deepStrictEqual(parseEvent({ ...valid }), { success: true, output: v.parse(EventSchema, { ...valid }) });
});
