/**
 * The statistics of a rate metric (docs/reference/experiments.md): conversion, and
 * trial started, each a count of users over the exposed users of a variant,
 * compared with the control by the pooled test over the phase's looks
 * (readout.ts), with the Bayesian chances of the raw counts.
 */
import { chanceToBeat, chanceToBeBestOf, expectedLoss } from './bayes.ts';
import type { Analysis } from './effects.ts';
import { minimumDetectableEffect, type PlanInput } from './power.ts';
import { type Design, type MetricLooks, type Read, readMetric } from './readout.ts';
import type { RateFigures, Uplift } from './schema.ts';
import { wilsonInterval } from './statistics.ts';

/** The relative view of a read: its effect, Fieller's interval and the test's p-values; null where the ratio or its interval is not. */
export function upliftOf(read: Read | null): Uplift {
  if (read === null || read.test.relative === null || read.relativeCi === null) return null;
  return { relative: read.test.relative, ci95: read.relativeCi, p_value: read.p_value, p_value_adjusted: read.p_value_adjusted };
}

/** The comparisons in a family of `design` that `i` belongs to (for α / m). */
export function comparisonsOf(design: Design, i: number): number {
  return Math.max(1, (design.holdouts.includes(i) ? design.holdouts : design.family).length);
}

/** What a metric's power figures take from the segment: CUPED's reduction on it (0 when off) and the users per look. */
export type PlanContext = Pick<PlanInput, 'reduction' | 'perLook'>;

/** Per variant (in order), users who did it out of the exposed users, with their statistics. */
export function rateMetric(
  groups: { users: number; exposed: number }[],
  metric: MetricLooks,
  design: Design,
  analysis: Analysis,
  context: PlanContext,
): RateFigures[] {
  const { c } = design;
  const { users: cc, exposed: nc } = groups[c]!;
  const reads = readMetric(metric, design, analysis);
  const withUsers = groups.flatMap((group, i) => (group.exposed > 0 ? [i] : []));
  const best = chanceToBeBestOf(withUsers.map((i) => ({ conversions: groups[i]!.users, n: groups[i]!.exposed })));
  return groups.map(({ users, exposed }, i) => {
    const chance = withUsers.indexOf(i);
    const read = reads[i] ?? null;
    const plan = { ...context, analysis, comparisons: comparisonsOf(design, i), kind: 'rate' as const, mean: nc > 0 ? cc / nc : 0, variance: 0 };
    return {
      rate: exposed === 0 ? null : users / exposed,
      rate_ci95: wilsonInterval(users, exposed),
      uplift: upliftOf(read),
      difference: read?.test.difference ?? null,
      p_value: read?.p_value ?? null,
      p_value_adjusted: read?.p_value_adjusted ?? null,
      expected_loss: expectedLoss(read?.test ?? null),
      chance_to_beat_control: i !== c && exposed > 0 && nc > 0 ? chanceToBeat(users, exposed, cc, nc) : null,
      chance_to_be_best: chance === -1 ? null : best[chance]!,
      mde_relative: i === c ? null : minimumDetectableEffect(plan, exposed, nc),
    };
  });
}
