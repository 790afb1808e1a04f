/**
 * The decision's rules in their order (docs/reference/experiments.md, "Decision") and
 * the sequential readout's running minimum and intersection over the looks,
 * each against a brute force of its definition.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_ADJUSTMENT, pooledArms, rateMoments } from '../../src/experiments/cuped.ts';
import { decide } from '../../src/experiments/decision.ts';
import { compareArms } from '../../src/experiments/effects.ts';
import { type MetricLooks, readMetric } from '../../src/experiments/readout.ts';

const base = {
  srmOk: true,
  enoughData: true,
  fewPayers: null,
  metric: 'conversion',
  control: 'c',
  targetUplift: 0.1,
  usersNeeded: 5000,
  planReached: false,
  lossThreshold: 0.005,
};

function comparison(variant: string, relative: number, ci95: [number, number], p: number, extra: { failedGuardrail?: string; loss?: number } = {}) {
  return {
    variant,
    difference: relative / 10,
    relative,
    ci95,
    p_value_adjusted: p,
    loss: extra.loss === undefined ? null : { ship: extra.loss, keep_control: extra.loss },
    failedGuardrail: extra.failedGuardrail ?? null,
  };
}

test('the decision follows its rules in order, with guardrails and the expected loss', () => {
  const up = comparison('x', 0.3, [0.1, 0.5], 0.01);
  const down = comparison('y', -0.3, [-0.5, -0.1], 0.01);
  const flat = comparison('z', 0.01, [-0.05, 0.07], 0.7);
  assert.equal(decide({ ...base, srmOk: false, comparisons: [up] }).status, 'srm_failed');
  assert.equal(decide({ ...base, enoughData: false, comparisons: [up] }).status, 'not_enough_data');
  assert.match(decide({ ...base, enoughData: false, fewPayers: { minimum: 100 }, comparisons: [up] }).reason, /100 payers in every variant/);
  const winner = decide({ ...base, comparisons: [down, up, comparison('w', 0.2, [0.05, 0.35], 0.02)] });
  assert.deepEqual([winner.status, winner.variant, winner.guardrail], ['winner', 'x', null]);
  // A guardrail stops the best: the next safe winner wins; with none safe, guardrail_failed names the variant and the guardrail.
  const guarded = comparison('x', 0.3, [0.1, 0.5], 0.01, { failedGuardrail: 'refund_rate' });
  assert.deepEqual(decide({ ...base, comparisons: [guarded, comparison('w', 0.2, [0.05, 0.35], 0.02)] }).variant, 'w');
  const stopped = decide({ ...base, comparisons: [guarded, flat] });
  assert.deepEqual([stopped.status, stopped.variant, stopped.guardrail], ['guardrail_failed', 'x', 'refund_rate']);
  assert.match(stopped.reason, /refund rate guardrail/);
  assert.equal(decide({ ...base, comparisons: [down, comparison('v', -0.2, [-0.3, -0.1], 0.02)] }).status, 'control_best');
  assert.equal(decide({ ...base, comparisons: [flat] }).status, 'no_difference');
  assert.equal(decide({ ...base, comparisons: [flat, down] }).status, 'keep_running');
  assert.equal(decide({ ...base, comparisons: [null] }).status, 'keep_running');
  // Wider than the target, but either choice costs less than the threshold: no_difference once the planned users are in.
  const cheap = comparison('z', 0.01, [-0.15, 0.17], 0.8, { loss: 0.004 });
  assert.equal(decide({ ...base, comparisons: [cheap] }).status, 'keep_running');
  const settled = decide({ ...base, planReached: true, comparisons: [cheap] });
  assert.equal(settled.status, 'no_difference');
  assert.match(settled.reason, /either choice costs less than 0\.5 %/);
  assert.equal(decide({ ...base, planReached: true, comparisons: [comparison('z', 0.01, [-0.15, 0.17], 0.8, { loss: 0.006 })] }).status, 'keep_running');
  // A comparison with no ratio (a control at 0) still decides by its test.
  const noRatio = { ...comparison('x', 0, [0, 0], 0.001), relative: null, ci95: null, difference: 0.02 };
  assert.equal(decide({ ...base, comparisons: [noRatio] }).status, 'winner');
  for (const status of ['winner', 'keep_running']) {
    const { reason } = decide({ ...base, comparisons: status === 'winner' ? [up] : [flat, down] });
    assert.match(reason, /^[A-Z].*[.]$/);
  }
});

/** Conversion looks of a control and one variant: cumulative [conversions, users] per look. */
function looks(control: [number, number][], variant: [number, number][]): MetricLooks {
  return {
    kind: 'rate',
    adjusted: false,
    looks: control.map(([cc, nc], i) => [rateMoments(cc, nc), rateMoments(variant[i]![0], variant[i]![1])]),
    ready: () => true,
  };
}

test('the sequential readout keeps the smallest p-value and the intersection of the intervals over the looks; the fixed one reads now', () => {
  // A variant ahead early, then closer: the early look's evidence stays.
  const control: [number, number][] = [
    [100, 2000],
    [200, 4000],
    [300, 6000],
  ];
  const variant: [number, number][] = [
    [170, 2000],
    [280, 4000],
    [340, 6000],
  ];
  const metric = looks(control, variant);
  const design = { c: 0, family: [1], holdouts: [] };
  const tests = control.map((_, i) => compareArms(...pooledArms(rateMoments(...variant[i]!), rateMoments(...control[i]!), NO_ADJUSTMENT), 'sequential')!);
  const [read] = readMetric(metric, design, 'sequential').slice(1);
  assert.equal(read!.p_value, Math.min(...tests.map((t) => t.p_value)));
  assert.ok(read!.p_value < tests[2]!.p_value, 'now alone would say less');
  assert.deepEqual(read!.ci95, [Math.max(...tests.map((t) => t.ci95[0])), Math.min(...tests.map((t) => t.ci95[1]))]);
  assert.deepEqual(read!.relativeCi, [Math.max(...tests.map((t) => t.relativeCi![0])), Math.min(...tests.map((t) => t.relativeCi![1]))]);
  assert.equal(read!.test.relative, tests[2]!.relative);
  const fixed = readMetric(metric, design, 'fixed')[1]!;
  const now = compareArms(...pooledArms(rateMoments(...variant[2]!), rateMoments(...control[2]!), NO_ADJUSTMENT), 'fixed')!;
  assert.deepEqual([fixed.p_value, fixed.ci95], [now.p_value, now.ci95]);
  // A look that cannot be read is skipped; intervals that no longer meet (the effect moved) leave now's.
  const skipped = readMetric({ ...metric, ready: (look) => look !== 0 }, design, 'sequential')[1]!;
  assert.equal(skipped.p_value, Math.min(tests[1]!.p_value, tests[2]!.p_value));
  const moved = looks(
    [
      [100, 4000],
      [400, 8000],
    ],
    [
      [300, 4000],
      [300, 8000],
    ],
  );
  const apart = readMetric(moved, design, 'sequential')[1]!;
  const last = compareArms(...pooledArms(rateMoments(300, 8000), rateMoments(400, 8000), NO_ADJUSTMENT), 'sequential')!;
  assert.deepEqual(apart.ci95, last.ci95);
});
