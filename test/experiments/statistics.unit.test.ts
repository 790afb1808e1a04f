/**
 * Every statistic of docs/reference/experiments.md against SciPy (test/experiments/reference.py,
 * independently of src/experiments/): the special functions, Wilson, the
 * Bayesian chances, the tests of the difference with Fieller's intervals,
 * CUPED, the expected loss, the sequential SRM test, the spread of
 * near-constant revenue and the power plan.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { listedMoments, revenueLooks } from '../../src/analytics/fold/revenue-moments.ts';
import { chanceToBeat, chanceToBeBestOf, expectedLoss } from '../../src/experiments/bayes.ts';
import { meanArm, NO_ADJUSTMENT, type Paired, pooledAdjustment, pooledArms, rateMoments } from '../../src/experiments/cuped.ts';
import { type Analysis, compareArms, holm, oneSidedWorse, type Test, Z95 } from '../../src/experiments/effects.ts';
import { minimumDetectableEffect, type PlanInput, usersNeededPerVariant } from '../../src/experiments/power.ts';
import { logBeta, normalCdf, normalQuantile } from '../../src/experiments/special.ts';
import { sampleRatioMismatch } from '../../src/experiments/srm.ts';
import { meanChanceToBeat, meanInterval, wilsonInterval } from '../../src/experiments/statistics.ts';

/** Figures computed by SciPy (test/experiments/reference.py), independently of src/experiments/. */
const reference = JSON.parse(readFileSync(new URL('./reference.json', import.meta.url), 'utf8'));

function close(actual: number | null | undefined, expected: number, tolerance: number, what: string): void {
  assert.ok(typeof actual === 'number', `${what}: expected a number, got ${String(actual)}`);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} differs from ${expected} by more than ${tolerance}`);
}

function closeInterval(actual: [number, number] | null, expected: [number, number] | null, tolerance: number, what: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${what}: expected null`);
    return;
  }
  assert.ok(actual !== null, `${what}: expected an interval, got null`);
  close(actual[0], expected[0], tolerance, `${what} low`);
  close(actual[1], expected[1], tolerance, `${what} high`);
}

test('the normal distribution function, its quantile and ln B match SciPy', () => {
  for (const { z, cdf } of reference.normal) close(normalCdf(z), cdf, 1e-12, `Φ(${z})`);
  for (const { p, z } of reference.quantiles) close(normalQuantile(p), z, 1e-12 * Math.max(1, Math.abs(z)), `Φ⁻¹(${p})`);
  close(Z95, reference.z975, 1e-15, 'Z95');
  // ln B of arguments near 10⁸ keeps its digits (the sum of three ln Γ near 10⁹ would lose 1e-7).
  for (const { a, b, value } of reference.log_betas) close(logBeta(a, b), value, 1e-13 * Math.max(1, Math.abs(value)), `ln B(${a}, ${b})`);
});

test('Wilson intervals match SciPy to 1e-6 and stay inside [0, 1]', () => {
  for (const { conversions, n, ci95 } of reference.wilson) {
    const interval = wilsonInterval(conversions, n)!;
    closeInterval(interval, ci95, 1e-6, `wilson(${conversions}/${n})`);
    assert.ok(interval[0] >= 0 && interval[1] <= 1, `wilson(${conversions}/${n}) ${interval}`);
  }
  // At 0 and n conversions, rounding puts the plain formula's bound a hair outside (0/21 gives −1.4e-17, 16/16 gives 1 + 2e-16).
  for (let n = 1; n <= 2000; n++) {
    assert.ok(wilsonInterval(0, n)![0] === 0 && wilsonInterval(n, n)![1] === 1, `0/${n} and ${n}/${n}`);
  }
  assert.equal(wilsonInterval(0, 0), null);
});

interface ReferenceTest {
  difference: number;
  p_value: number;
  ci95: [number, number];
  relative: number | null;
  relative_ci95: [number, number] | null;
  relative_se: number | null;
}

function sameTest(actual: Test | null, expected: ReferenceTest | null, what: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${what}: expected no test`);
    return;
  }
  assert.ok(actual !== null, `${what}: expected a test, got null`);
  close(actual.difference, expected.difference, 1e-12, `${what} difference`);
  close(actual.p_value, expected.p_value, 1e-9, `${what} p`);
  closeInterval(actual.ci95, expected.ci95, 1e-9, `${what} ci`);
  if (expected.relative === null) assert.equal(actual.relative, null, `${what} relative`);
  else close(actual.relative, expected.relative, 1e-12, `${what} relative`);
  closeInterval(actual.relativeCi, expected.relative_ci95, 1e-9, `${what} relative ci`);
  if (expected.relative_se !== null) close(actual.relativeSe, expected.relative_se, 1e-12, `${what} relative se`);
  // One test: p < 0.05 exactly when the difference's interval, and Fieller's where bounded, exclude 0.
  assert.equal(actual.p_value < 0.05, actual.ci95[0] > 0 || actual.ci95[1] < 0, `${what}: p and interval agree`);
  if (actual.relativeCi) assert.equal(actual.p_value < 0.05, actual.relativeCi[0] > 0 || actual.relativeCi[1] < 0, `${what}: p and Fieller agree`);
}

const ANALYSES: Analysis[] = ['fixed', 'sequential'];

test('a rate is tested by the pooled difference of means with Fieller’s interval, zero-event arms included, as SciPy computes them', () => {
  for (const { variant, control, ...expected } of reference.rate_tests) {
    const [cv, nv] = variant;
    const [cc, nc] = control;
    for (const analysis of ANALYSES) {
      const [v, c] = pooledArms(rateMoments(cv, nv), rateMoments(cc, nc), NO_ADJUSTMENT);
      const test = compareArms(v, c, analysis);
      sameTest(test, expected[analysis], `${cv}/${nv} vs ${cc}/${nc} ${analysis}`);
      // The same test whichever arm is ahead: swapping them negates the difference and keeps the p-value.
      const [c2, v2] = pooledArms(rateMoments(cc, nc), rateMoments(cv, nv), NO_ADJUSTMENT);
      const swapped = compareArms(c2, v2, analysis);
      if (test !== null) {
        close(swapped?.p_value, test.p_value, 1e-15, 'swapped p');
        close(swapped?.difference, -test.difference, 1e-15, 'swapped difference');
      }
    }
  }
  // A variant with no conversion against one with some is tested; its ratio stops at −100 %, and a control at 0 has no ratio.
  const [none, some] = pooledArms(rateMoments(0, 500), rateMoments(9, 480), NO_ADJUSTMENT);
  const zero = compareArms(none, some, 'fixed')!;
  assert.ok(zero.p_value < 0.01 && zero.relativeCi![0] === -1);
  assert.equal(compareArms(some, none, 'fixed')!.relative, null);
});

test('revenue is tested by Welch’s difference of means with Fieller’s interval, as SciPy computes them from the data', () => {
  for (const { variant, control, ...expected } of reference.mean_tests) {
    for (const analysis of ANALYSES) {
      const test = compareArms(meanArm(variant, NO_ADJUSTMENT)!, meanArm(control, NO_ADJUSTMENT)!, analysis, false);
      sameTest(test, expected[analysis], `revenue ${variant.n} vs ${control.n} ${analysis}`);
    }
  }
  for (const { variant, control, mean, ci95, chance_to_beat } of reference.revenue) {
    close(variant.meanY, mean, 1e-9, 'mean');
    closeInterval(meanInterval(variant), ci95, 1e-6, 'mean interval');
    close(meanChanceToBeat(variant, control), chance_to_beat, 1e-6, 'revenue chance to beat');
  }
  assert.equal(meanInterval({ n: 1, meanY: 5, m2y: 0, meanX: 0, m2x: 0, c: 0 }), null);
});

test('CUPED: θ on every arm pooled, its variance reduction and the adjusted tests match NumPy and SciPy', () => {
  for (const { kind, arms, theta, reduction, adjusted_means, tests } of reference.cuped) {
    const adjustment = pooledAdjustment(arms as Paired[]);
    close(adjustment.theta, theta, 1e-10, `${kind} θ`);
    close(adjustment.reduction, reduction, 1e-10, `${kind} reduction`);
    (tests as Record<Analysis, ReferenceTest>[]).forEach((expected, j) => {
      for (const analysis of ANALYSES) {
        const [v, c] = kind === 'rate' ? pooledArms(arms[j + 1], arms[0], adjustment) : [meanArm(arms[j + 1], adjustment)!, meanArm(arms[0], adjustment)!];
        close(v.mean, adjusted_means[j + 1], 1e-12, `${kind} adjusted mean`);
        sameTest(compareArms(v, c, analysis, kind === 'rate'), expected[analysis], `${kind} arm ${j + 1} ${analysis}`);
      }
    });
  }
});

test('the expected loss of each choice matches its integral by SciPy', () => {
  for (const { relative, se, ship, keep_control } of reference.losses) {
    const loss = expectedLoss({ relative, relativeSe: se } as Test)!;
    close(loss.ship, ship, 1e-10, `ship at ${relative} ± ${se}`);
    close(loss.keep_control, keep_control, 1e-10, `keep at ${relative} ± ${se}`);
  }
  assert.equal(expectedLoss(null), null);
});

test('the sequential SRM test matches SciPy’s Dirichlet-multinomial Bayes factors, minimum over the looks', () => {
  for (const { looks, shares, p_value } of reference.srm_sequential) {
    const ids = shares.map((_: number, i: number) => `v${i}`);
    const check = sampleRatioMismatch(ids, shares, looks);
    close(check.p_value, p_value, 1e-9 * Math.max(1, p_value), `srm ${JSON.stringify(looks)}`);
    assert.equal(check.ok, p_value >= 0.001);
  }
  // Safe for any variant id; no verdict with one variant or no user.
  const odd = sampleRatioMismatch(['constructor', '__proto__'], [0.5, 0.5], [[10, 12]]);
  assert.equal(Object.getOwnPropertyDescriptor(odd.observed, '__proto__')?.value, 12);
  assert.equal(sampleRatioMismatch(['a'], [1], [[10]]).p_value, null);
  assert.equal(sampleRatioMismatch(['a', 'b'], [0.5, 0.5], [[0, 0]]).ok, null);
});

/** The values reference.py generates by the same rule: 10⁶ plus some cents, or 9.99 for everyone. */
function nearConstant(n: number, constant: boolean): number[] {
  return Array.from({ length: n }, (_, i) => (constant ? 9.99 : 1e6 + ((i * 7919) % 100) / 100));
}

test('the fold’s revenue spread is exact for near-constant revenue at 10⁵ users (a naive sum of squares is not)', () => {
  for (const { constant, n, mean, m2 } of reference.near_constant) {
    const values = nearConstant(n, constant);
    const list = values.map((value, i) => ({ variant: 0, key: i, exposed: 0, x: 0, changes: [1, value, 1] }));
    const now = revenueLooks(listedMoments(list, Number.POSITIVE_INFINITY, 1, [Number.POSITIVE_INFINITY]), [[n]])[0]![0]!;
    close(now.moments.meanY, mean, 1e-14 * mean, 'mean');
    if (constant) assert.equal(now.moments.m2y, 0, 'a constant revenue has no spread at all');
    else close(now.moments.m2y, m2, 1e-9 * m2, 'spread');
    const sum = values.reduce((a, b) => a + b, 0);
    const naive = values.reduce((a, b) => a + b * b, 0) - (sum * sum) / n;
    if (!constant) assert.ok(Math.abs(naive - m2) > 0.01 * m2, `the naive sum of squares is off: ${naive} vs ${m2}`);
  }
});

test('chance to beat control and to be best match numerical integration in SciPy within 1e-6, and sum to 1', () => {
  for (const { variant, control, chance_to_beat } of reference.comparisons) {
    close(chanceToBeat(variant[0], variant[1], control[0], control[1]), chance_to_beat, 1e-6, `${variant} vs ${control} chance to beat`);
  }
  for (const { groups, chance_to_be_best } of reference.best) {
    const computed = chanceToBeBestOf(groups.map(([conversions, n]: [number, number]) => ({ conversions, n })));
    for (const [i, expected] of (chance_to_be_best as number[]).entries()) close(computed[i], expected, 1e-6, `best ${JSON.stringify(groups)} ${i}`);
    close(
      computed.reduce((a, b) => a + b, 0),
      1,
      1e-12,
      'sum',
    );
  }
  for (const { variant, control, chance_to_beat } of reference.big_beat) {
    close(chanceToBeat(variant[0], variant[1], control[0], control[1]), chance_to_beat, 1e-6, 'chance to beat at 1e8');
  }
  assert.deepEqual(chanceToBeBestOf([{ conversions: 3, n: 10 }]), [1]);
});

test('Holm adjusted p-values match their definition; nulls stay out of the family', () => {
  for (const { p, adjusted } of reference.holm) {
    for (const [i, value] of holm(p).entries()) close(value, adjusted[i], 1e-12, `holm ${p} ${i}`);
  }
  assert.deepEqual(holm([0.01, null, 0.04]), [0.02, null, 0.04]);
});

test('a guardrail’s one-sided p-value is the tail on the harmful side: half the two-sided one when the variant is worse', () => {
  for (const { variant, control, ...expected } of reference.rate_tests) {
    for (const analysis of ANALYSES) {
      const two = expected[analysis] as ReferenceTest | null;
      if (two === null || two.difference === 0) continue;
      const [v, c] = pooledArms(rateMoments(variant[0], variant[1]), rateMoments(control[0], control[1]), NO_ADJUSTMENT);
      const test = compareArms(v, c, analysis)!;
      const n = variant[1] + control[1];
      const worse = oneSidedWorse(test, two.difference < 0 ? -1 : 1, analysis, n);
      close(worse, two.p_value / 2, 1e-9, `${variant} vs ${control} ${analysis} worse`);
      close(oneSidedWorse(test, two.difference < 0 ? 1 : -1, analysis, n), 1 - two.p_value / 2, 1e-9, `${variant} vs ${control} ${analysis} better`);
    }
  }
});

test('the fixed-horizon plan is the smallest n with 80 % power at α / comparisons, as SciPy finds it', () => {
  for (const { kind, mean, variance, target, comparisons, users } of reference.power_plans) {
    const plan: PlanInput = { analysis: 'fixed', comparisons, kind, mean, variance, reduction: 0, perLook: null };
    const n = usersNeededPerVariant(plan, target)!;
    assert.ok(Math.abs(n - users) <= 1, `${kind} ${mean} +${target} over ${comparisons}: ${n} vs ${users}`);
    // The MDE with that many users is the target again, and CUPED's reduction shrinks the plan by its share.
    close(minimumDetectableEffect(plan, n, n), target, 1e-3 * target, 'mde at the plan');
    const reduced = usersNeededPerVariant({ ...plan, reduction: 0.3 }, target)!;
    assert.ok(Math.abs(reduced / n - 0.7) < 0.01, `CUPED 30 %: ${reduced} vs ${n}`);
  }
  assert.equal(usersNeededPerVariant({ analysis: 'fixed', comparisons: 1, kind: 'rate', mean: 0, variance: 0, reduction: 0, perLook: null }, 0.1), null);
  assert.equal(usersNeededPerVariant({ analysis: 'fixed', comparisons: 1, kind: 'rate', mean: 0.95, variance: 0, reduction: 0, perLook: null }, 0.1), null);
});

test('the sequential plan is within 5 % of the n at which a Monte Carlo of its daily looks in SciPy reaches 80 % power', () => {
  for (const { mean, target, comparisons, looks, users } of reference.sequential_plans) {
    let n = users;
    // The plan counts the looks the traffic gives up to its horizon: with the reference's looks per horizon, at its own n.
    for (let i = 0; i < 5; i++)
      n = usersNeededPerVariant({ analysis: 'sequential', comparisons, kind: 'rate', mean, variance: 0, reduction: 0, perLook: n / looks }, target)!;
    assert.ok(Math.abs(n / users - 1) < 0.05, `${mean} +${target} over ${comparisons}, ${looks} looks: ${n} vs ${users}`);
    const fixed = usersNeededPerVariant({ analysis: 'fixed', comparisons, kind: 'rate', mean, variance: 0, reduction: 0, perLook: null }, target)!;
    assert.ok(n > 1.5 * fixed, `the sequential readout needs more than the fixed one: ${n} vs ${fixed}`);
  }
});
