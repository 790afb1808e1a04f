/**
 * The statistics of a rate metric (docs/experiments.md): conversion, and
 * trial started, each a count of users over the exposed users of a variant,
 * compared with the control the same way.
 */
import { chanceToBeat, chanceToBeBestOf } from './bayes.ts';
import { type Analysis, conversionEffect, type Estimate, holm, minimumDetectableEffect, relativeInference } from './effects.ts';
import type { RateFigures, Uplift } from './schema.ts';
import { wilsonInterval } from './statistics.ts';

/** Inferences of the non-control variants of one metric, with Holm-adjusted p-values (the control's entry stays null). */
export function uplifts(estimates: (Estimate | null)[], analysis: Analysis): Uplift[] {
  const inferences = estimates.map((estimate) => relativeInference(estimate, analysis));
  const adjusted = holm(inferences.map((inference) => inference?.p_value ?? null));
  return inferences.map((inference, i) =>
    inference === null ? null : { relative: inference.value, ci95: inference.ci95, p_value: inference.p_value, p_value_adjusted: adjusted[i]! },
  );
}

/** Per variant (in order; `c` is the control's index), users who did it out of the exposed users, with their statistics. */
export function rateMetric(groups: { users: number; exposed: number }[], c: number, analysis: Analysis): RateFigures[] {
  const { users: cc, exposed: nc } = groups[c]!;
  const uplift = uplifts(
    groups.map((group, i) => (i === c ? null : conversionEffect(group.users, group.exposed, cc, nc))),
    analysis,
  );
  const withUsers = groups.flatMap((group, i) => (group.exposed > 0 ? [i] : []));
  const best = chanceToBeBestOf(withUsers.map((i) => ({ conversions: groups[i]!.users, n: groups[i]!.exposed })));
  return groups.map(({ users, exposed }, i) => {
    const chance = withUsers.indexOf(i);
    return {
      rate: exposed === 0 ? null : users / exposed,
      rate_ci95: wilsonInterval(users, exposed),
      uplift: uplift[i]!,
      chance_to_beat_control: i !== c && exposed > 0 && nc > 0 ? chanceToBeat(users, exposed, cc, nc) : null,
      chance_to_be_best: chance === -1 ? null : best[chance]!,
      mde_relative: i === c ? null : minimumDetectableEffect(exposed, cc, nc),
    };
  });
}
