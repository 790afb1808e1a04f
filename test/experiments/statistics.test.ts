import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { chiSquareSurvival, normalCdf } from '../../src/experiments/special.ts';
import {
  chanceToBeat,
  meanChanceToBeat,
  meanInterval,
  relativeUplift,
  sampleRatioMismatch,
  twoProportionPValue,
  wilsonInterval,
} from '../../src/experiments/statistics.ts';

/** Figures computed by SciPy (test/experiments/reference.py), independently of src/experiments/. */
const reference = JSON.parse(readFileSync(new URL('./reference.json', import.meta.url), 'utf8'));

function close(actual: number | null | undefined, expected: number, tolerance: number, what: string): void {
  assert.ok(typeof actual === 'number', `${what}: expected a number, got ${String(actual)}`);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} differs from ${expected} by more than ${tolerance}`);
}

test('the normal distribution function matches SciPy to 1e-12', () => {
  for (const { z, cdf } of reference.normal) close(normalCdf(z), cdf, 1e-12, `Φ(${z})`);
});

test('the chi-square survival function matches SciPy to 1e-10', () => {
  for (const { x, df, sf } of reference.chi2) close(chiSquareSurvival(x, df), sf, 1e-10, `chi2.sf(${x}, ${df})`);
});

test('Wilson intervals match SciPy to 1e-6', () => {
  for (const { conversions, n, ci95 } of reference.wilson) {
    const interval = wilsonInterval(conversions, n);
    close(interval?.[0], ci95[0], 1e-6, `wilson(${conversions}/${n}) low`);
    close(interval?.[1], ci95[1], 1e-6, `wilson(${conversions}/${n}) high`);
  }
  assert.equal(wilsonInterval(0, 0), null);
});

test('p-values, uplift intervals and the Beta chance to beat control match SciPy', () => {
  for (const { variant, control, p_value, uplift, chance_to_beat } of reference.comparisons) {
    const [cv, nv] = variant;
    const [cc, nc] = control;
    const what = `${cv}/${nv} vs ${cc}/${nc}`;
    close(twoProportionPValue(cv, nv, cc, nc), p_value, 1e-6, `${what} p-value`);
    const computed = relativeUplift(cv, nv, cc, nc);
    if (uplift === null) assert.equal(computed, null, `${what}: no uplift over a zero control rate`);
    else {
      close(computed?.relative, uplift.relative, 1e-6, `${what} uplift`);
      close(computed?.ci95[0], uplift.ci95[0], 1e-6, `${what} uplift low`);
      close(computed?.ci95[1], uplift.ci95[1], 1e-6, `${what} uplift high`);
    }
    close(chanceToBeat(cv, nv, cc, nc), chance_to_beat, 1e-6, `${what} chance to beat`);
  }
});

test('the chance to beat control is symmetric and one half for identical groups', () => {
  close(chanceToBeat(50, 1000, 50, 1000), 0.5, 1e-9, 'identical');
  close(chanceToBeat(75, 1040, 50, 1000) + chanceToBeat(50, 1000, 75, 1040), 1, 1e-9, 'symmetry');
});

test('revenue per exposed user, its interval and chance to beat control match NumPy and SciPy', () => {
  for (const { variant, control, mean, ci95, chance_to_beat } of reference.revenue) {
    const figures = meanInterval(variant);
    close(figures?.mean, mean, 1e-9, 'mean');
    close(figures?.ci95?.[0], ci95[0], 1e-6, 'mean low');
    close(figures?.ci95?.[1], ci95[1], 1e-6, 'mean high');
    close(meanChanceToBeat(variant, control), chance_to_beat, 1e-6, 'revenue chance to beat');
  }
  assert.equal(meanInterval({ n: 0, sum: 0, sumOfSquares: 0 }), null);
  assert.deepEqual(meanInterval({ n: 1, sum: 5, sumOfSquares: 25 }), { mean: 5, ci95: null });
  assert.equal(meanChanceToBeat({ n: 10, sum: 0, sumOfSquares: 0 }, { n: 10, sum: 0, sumOfSquares: 0 }), null);
});

test('the sample-ratio-mismatch check matches scipy.stats.chisquare', () => {
  for (const { observed, weights, expected, p_value } of reference.srm) {
    const ids = observed.map((_: number, i: number) => `v${i}`);
    const check = sampleRatioMismatch(
      new Map(ids.map((id: string, i: number) => [id, observed[i]])),
      new Map(ids.map((id: string, i: number) => [id, weights[i]])),
    );
    close(check.p_value, p_value, 1e-6, `srm ${observed}`);
    assert.equal(check.ok, p_value >= 0.001);
    for (const [i, id] of ids.entries()) close(check.expected[id], expected[i], 1e-9, `expected ${id}`);
  }
});

test('the SRM check has no verdict with fewer than two variants or no users, and is safe for any variant id', () => {
  assert.equal(sampleRatioMismatch(new Map([['a', 10]]), new Map([['a', 100]])).p_value, null);
  assert.equal(
    sampleRatioMismatch(
      new Map(),
      new Map([
        ['a', 50],
        ['b', 50],
      ]),
    ).ok,
    null,
  );
  const check = sampleRatioMismatch(
    new Map([
      ['constructor', 10],
      ['__proto__', 12],
    ]),
    new Map([
      ['constructor', 50],
      ['__proto__', 50],
    ]),
  );
  assert.equal(check.observed.constructor, 10);
  assert.equal(Object.getOwnPropertyDescriptor(check.observed, '__proto__')?.value, 12);
});
