/**
 * Experiment results of one phase and segment: the segment's design (its
 * variants, weights and control) read from the phase, and every figure of
 * docs/experiments.md computed from the counts the event writer folded.
 */
import type { FoldResult } from '../events/derived/experiment-fold.ts';
import type { PhaseDesign } from '../paywalls/phases.ts';
import type { Phase, Results } from './schema.ts';
import { chanceToBeat, meanChanceToBeat, meanInterval, relativeUplift, sampleRatioMismatch, twoProportionPValue, wilsonInterval } from './statistics.ts';

/** Below these, `enough_data` is false (issue 12). */
const MIN_EXPOSED_PER_VARIANT = 100;
const MIN_CONVERSIONS = 10;

export interface SegmentDesign {
  /** Variants users of the segment can get (weight > 0), in document order. */
  variants: string[];
  weights: Record<string, number>;
  holdouts: Set<string>;
  control: string;
}

/** The design of the default split (audience null) or of one audience; undefined when the phase has no such audience. */
export function segmentDesign(design: PhaseDesign, audience: string | null): SegmentDesign | undefined {
  let weightOf: (id: string) => number;
  if (audience === null) {
    weightOf = (id) => design.variants.find((variant) => variant.id === id)!.weight;
  } else {
    const found = design.audiences.find((candidate) => candidate.id === audience);
    if (!found) return undefined;
    weightOf = (id) => (Object.hasOwn(found.weights, id) ? found.weights[id]! : 0);
  }
  const listed = design.variants.filter((variant) => weightOf(variant.id) > 0);
  const weights: Record<string, number> = Object.create(null);
  for (const variant of listed) weights[variant.id] = weightOf(variant.id);
  const control = listed.find((variant) => variant.control === true) ?? listed[0]!;
  return {
    variants: listed.map((variant) => variant.id),
    weights,
    holdouts: new Set(listed.filter((variant) => variant.holdout).map((variant) => variant.id)),
    control: control.id,
  };
}

export function buildResults(paywallId: string, audience: string | null, phase: Phase, segment: SegmentDesign, fold: FoldResult): Results {
  const c = segment.variants.indexOf(segment.control);
  const control = fold.variants[c]!;
  const nc = control.exposed_users;
  const cc = control.conversions;
  const observed = new Map<string, number>();
  const srmWeights = new Map<string, number>();
  segment.variants.forEach((id, i) => {
    if (segment.holdouts.has(id)) return;
    observed.set(id, fold.variants[i]!.exposed_users);
    srmWeights.set(id, segment.weights[id]!);
  });
  const totalConversions = fold.variants.reduce((sum, variant) => sum + variant.conversions, 0);
  return {
    paywall_id: paywallId,
    audience,
    phase,
    control: segment.control,
    enough_data: fold.variants.every((variant) => variant.exposed_users >= MIN_EXPOSED_PER_VARIANT) && totalConversions >= MIN_CONVERSIONS,
    multiple_exposure_users: fold.multiple_exposure_users,
    srm: sampleRatioMismatch(observed, srmWeights),
    variants: segment.variants.map((id, i) => {
      const figures = fold.variants[i]!;
      const n = figures.exposed_users;
      const conversions = figures.conversions;
      const compared = i !== c && n > 0 && nc > 0;
      return {
        variant_id: id,
        exposed_users: n,
        conversions,
        conversion_rate: n === 0 ? null : conversions / n,
        conversion_rate_ci95: wilsonInterval(conversions, n),
        uplift: compared ? relativeUplift(conversions, n, cc, nc) : null,
        p_value: compared ? twoProportionPValue(conversions, n, cc, nc) : null,
        chance_to_beat_control: compared ? chanceToBeat(conversions, n, cc, nc) : null,
        revenue: figures.revenue.map((revenue, r) => {
          const moments = { n, sum: revenue.total, sumOfSquares: revenue.sum_of_squares };
          const controlRevenue = control.revenue[r]!;
          const mean = meanInterval(moments);
          return {
            currency: revenue.currency,
            total: revenue.total,
            per_exposed_user: mean?.mean ?? null,
            per_exposed_user_ci95: mean?.ci95 ?? null,
            chance_to_beat_control: compared
              ? meanChanceToBeat(moments, { n: nc, sum: controlRevenue.total, sumOfSquares: controlRevenue.sum_of_squares })
              : null,
          };
        }),
      };
    }),
    days: fold.days.map((day) => {
      const variants: Results['days'][number]['variants'] = Object.create(null);
      segment.variants.forEach((id, i) => {
        variants[id] = { exposed_users: day.exposed_users[i]!, conversions: day.conversions[i]! };
      });
      return { day: day.day, variants };
    }),
  };
}
