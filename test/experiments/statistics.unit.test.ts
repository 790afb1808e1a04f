import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { chanceToBeat, chanceToBeBestOf } from '../../src/experiments/bayes.ts';
import { decide } from '../../src/experiments/decision.ts';
import {
  type Analysis,
  conversionEffect,
  differenceInference,
  holm,
  type Inference,
  meanDifference,
  meanRelativeEffect,
  minimumDetectableEffect,
  relativeInference,
  usersNeededPerVariant,
} from '../../src/experiments/effects.ts';
import { chiSquareSurvival, normalCdf } from '../../src/experiments/special.ts';
import { bucketShares, meanChanceToBeat, meanInterval, sampleRatioMismatch, wilsonInterval } from '../../src/experiments/statistics.ts';

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

interface ReferenceInference {
  value: number;
  ci95: [number, number];
  p_value: number;
}

function sameInference(actual: Inference | null, expected: ReferenceInference | null, what: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${what}: expected null`);
    return;
  }
  assert.ok(actual !== null, `${what}: expected figures, got null`);
  close(actual.value, expected.value, 1e-6, `${what} value`);
  close(actual.ci95[0], expected.ci95[0], 1e-6, `${what} low`);
  close(actual.ci95[1], expected.ci95[1], 1e-6, `${what} high`);
  close(actual.p_value, expected.p_value, 1e-6, `${what} p-value`);
  // One statistic: the p-value is below 0.05 exactly when the interval excludes 0.
  assert.equal(actual.p_value < 0.05, actual.ci95[0] > 0 || actual.ci95[1] < 0, `${what}: p and interval agree`);
}

test('conversion uplift, its interval and p-value (fixed and sequential), MDE and the chance to beat control match SciPy', () => {
  for (const { variant, control, chance_to_beat, fixed, sequential, mde_relative } of reference.comparisons) {
    const [cv, nv] = variant;
    const [cc, nc] = control;
    const what = `${cv}/${nv} vs ${cc}/${nc}`;
    for (const [analysis, expected] of [
      ['fixed', fixed],
      ['sequential', sequential],
    ] as [Analysis, ReferenceInference | null][]) {
      sameInference(relativeInference(conversionEffect(cv, nv, cc, nc), analysis), expected, `${what} ${analysis}`);
    }
    if (mde_relative === null) assert.equal(minimumDetectableEffect(nv, cc, nc), null);
    else close(minimumDetectableEffect(nv, cc, nc), mde_relative, 1e-6, `${what} mde`);
    close(chanceToBeat(cv, nv, cc, nc), chance_to_beat, 1e-6, `${what} chance to beat`);
  }
});

test('the sequential interval is wider than the fixed one, and never goes below −100 %', () => {
  const effect = conversionEffect(75, 1040, 50, 1000)!;
  const fixed = relativeInference(effect, 'fixed')!;
  const sequential = relativeInference(effect, 'sequential')!;
  assert.ok(sequential.ci95[1] - sequential.value > fixed.ci95[1] - fixed.value);
  assert.ok(sequential.p_value > fixed.p_value);
  assert.equal(relativeInference(conversionEffect(1, 20, 3, 20), 'sequential')!.ci95[0], -1);
  // Degenerate cases are null, never [−1, −1] or a zero interval.
  assert.equal(relativeInference(conversionEffect(0, 100, 5, 100), 'fixed'), null);
  assert.equal(relativeInference(conversionEffect(100, 100, 100, 100), 'fixed'), null);
  assert.equal(relativeInference(conversionEffect(5, 100, 0, 100), 'fixed'), null);
});

test('chance to be best matches numerical integration in SciPy within 1e-4, sums to 1, and the chance to beat at 10⁸ users too', () => {
  for (const { groups, chance_to_be_best } of reference.best) {
    const computed = chanceToBeBestOf(groups.map(([conversions, n]: [number, number]) => ({ conversions, n })));
    for (const [i, expected] of (chance_to_be_best as number[]).entries()) close(computed[i], expected, 1e-4, `best ${JSON.stringify(groups)} ${i}`);
    close(
      computed.reduce((a, b) => a + b, 0),
      1,
      1e-12,
      'sum',
    );
  }
  for (const { variant, control, chance_to_beat } of reference.big_beat) {
    close(chanceToBeat(variant[0], variant[1], control[0], control[1]), chance_to_beat, 1e-4, 'chance to beat at 1e8');
  }
  assert.deepEqual(chanceToBeBestOf([{ conversions: 3, n: 10 }]), [1]);
});

test('Holm adjusted p-values match their definition; nulls stay out of the family', () => {
  for (const { p, adjusted } of reference.holm) {
    for (const [i, value] of holm(p).entries()) close(value, adjusted[i], 1e-12, `holm ${p} ${i}`);
  }
  assert.deepEqual(holm([0.01, null, 0.04]), [0.02, null, 0.04]);
});

test('users needed per variant match the sample-size formula', () => {
  for (const { p_c, target, users } of reference.power) assert.equal(usersNeededPerVariant(p_c, target), users, `${p_c} ${target}`);
  assert.equal(usersNeededPerVariant(0, 0.1), null);
  assert.equal(usersNeededPerVariant(0.95, 0.1), null);
});

test('revenue per exposed user, its interval and chance to beat control match NumPy and SciPy', () => {
  for (const { variant, control, mean, ci95, chance_to_beat, relative, difference } of reference.revenue) {
    const figures = meanInterval(variant);
    close(figures?.mean, mean, 1e-9, 'mean');
    close(figures?.ci95?.[0], ci95[0], 1e-6, 'mean low');
    close(figures?.ci95?.[1], ci95[1], 1e-6, 'mean high');
    close(meanChanceToBeat(variant, control), chance_to_beat, 1e-6, 'revenue chance to beat');
    for (const analysis of ['fixed', 'sequential'] as const) {
      sameInference(relativeInference(meanRelativeEffect(variant, control), analysis), relative[analysis], `revenue uplift ${analysis}`);
      sameInference(differenceInference(meanDifference(variant, control), analysis), difference[analysis], `revenue difference ${analysis}`);
    }
  }
  assert.equal(meanInterval({ n: 0, sum: 0, sumOfSquares: 0 }), null);
  assert.deepEqual(meanInterval({ n: 1, sum: 5, sumOfSquares: 25 }), { mean: 5, ci95: null });
  assert.equal(meanChanceToBeat({ n: 10, sum: 0, sumOfSquares: 0 }, { n: 10, sum: 0, sumOfSquares: 0 }), null);
});

test('the sample-ratio-mismatch check against the true bucket shares matches scipy.stats.chisquare', () => {
  for (const { observed, weights, expected, p_value } of reference.srm) {
    const ids = observed.map((_: number, i: number) => `v${i}`);
    const shares = bucketShares(weights);
    const check = sampleRatioMismatch(
      new Map(ids.map((id: string, i: number) => [id, observed[i]])),
      new Map(ids.map((id: string, i: number) => [id, shares[i]!])),
    );
    close(check.p_value, p_value, 1e-6, `srm ${observed}`);
    assert.equal(check.ok, p_value >= 0.001);
    for (const [i, id] of ids.entries()) close(check.expected[id], expected[i], 1e-9, `expected ${id}`);
  }
});

test('the SRM check has no verdict with fewer than two variants or no users, and is safe for any variant id', () => {
  assert.equal(sampleRatioMismatch(new Map([['a', 10]]), new Map([['a', 1]])).p_value, null);
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
      ['constructor', 0.5],
      ['__proto__', 0.5],
    ]),
  );
  assert.equal(check.observed.constructor, 10);
  assert.equal(Object.getOwnPropertyDescriptor(check.observed, '__proto__')?.value, 12);
});

test('the decision follows the rules in order', () => {
  const base = { srmOk: true, enoughData: true, metric: 'conversion', control: 'c', targetUplift: 0.1, usersNeeded: 5000 };
  const comparison = (variant: string, relative: number, ci95: [number, number], p: number) => ({ variant, relative, ci95, p_value_adjusted: p });
  const up = comparison('x', 0.3, [0.1, 0.5], 0.01);
  const down = comparison('y', -0.3, [-0.5, -0.1], 0.01);
  const flat = comparison('z', 0.01, [-0.05, 0.07], 0.7);
  assert.equal(decide({ ...base, srmOk: false, comparisons: [up] }).status, 'srm_failed');
  assert.equal(decide({ ...base, enoughData: false, comparisons: [up] }).status, 'not_enough_data');
  const winner = decide({ ...base, comparisons: [down, up, comparison('w', 0.2, [0.05, 0.35], 0.02)] });
  assert.deepEqual([winner.status, winner.variant], ['winner', 'x']);
  assert.equal(decide({ ...base, comparisons: [down, comparison('v', -0.2, [-0.3, -0.1], 0.02)] }).status, 'control_best');
  assert.equal(decide({ ...base, comparisons: [flat] }).status, 'no_difference');
  assert.equal(decide({ ...base, comparisons: [flat, down] }).status, 'keep_running');
  assert.equal(decide({ ...base, comparisons: [null] }).status, 'keep_running');
  for (const status of ['winner', 'keep_running']) {
    const { reason } = decide({ ...base, comparisons: status === 'winner' ? [up] : [flat, down] });
    assert.match(reason, /^[A-Z].*[.]$/);
  }
});
