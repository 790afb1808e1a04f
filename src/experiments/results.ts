/**
 * Experiment results of one phase and segment: the segment's design (its
 * variants, weights and control) read from the phase, and every figure of
 * docs/experiments.md computed from the counts the event writer folded.
 */

import type { FoldResult, VariantFigures } from '../analytics/fold/fold-types.ts';
import type { ExperimentSettings } from '../paywalls/document/experiment.ts';
import { decide } from './decision.ts';
import { type Analysis, differenceInference, meanDifference, meanRelativeEffect, usersNeededPerVariant } from './effects.ts';
import type { PhaseDesign } from './phases.ts';
import { rateMetric, uplifts } from './rate-metric.ts';
import type { Phase, Results } from './schema.ts';
import { bucketShares, type Moments, meanChanceToBeat, meanInterval, sampleRatioMismatch } from './statistics.ts';

/** Below these, `enough_data` is false: too few users or conversions for the statistics to mean much (docs/experiments.md). */
const MIN_EXPOSED_PER_VARIANT = 100;
const MIN_CONVERSIONS = 10;

interface SegmentDesign {
  /** Variants users of the segment can get (weight > 0), in document order. */
  variants: string[];
  weights: Record<string, number>;
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
    control: control.id,
  };
}

/** How the results are read: the paywall's experiment settings, with the request's analysis override applied. */
interface ReadSettings {
  analysis: Analysis;
  primaryMetric: string;
  targetUplift: number;
  conversionWindowHours: number | null;
}

const DEFAULT_TARGET_UPLIFT = 0.1;

export function readSettings(settings: ExperimentSettings | undefined, override: Analysis | undefined): ReadSettings {
  return {
    analysis: override ?? settings?.analysis ?? 'sequential',
    primaryMetric: settings?.primary_metric ?? 'conversion',
    targetUplift: settings?.target_uplift ?? DEFAULT_TARGET_UPLIFT,
    conversionWindowHours: settings?.conversion_window_hours ?? null,
  };
}

export function buildResults(paywallId: string, audience: string | null, phase: Phase, segment: SegmentDesign, fold: FoldResult, read: ReadSettings): Results {
  const { analysis } = read;
  const c = segment.variants.indexOf(segment.control);
  const control = fold.variants[c]!;
  const shares = bucketShares(segment.variants.map((id) => segment.weights[id]!));
  const observed = new Map<string, number>();
  const srmShares = new Map<string, number>();
  segment.variants.forEach((id, i) => {
    observed.set(id, fold.variants[i]!.exposed_users);
    srmShares.set(id, shares[i]!);
  });
  const srm = sampleRatioMismatch(observed, srmShares);
  const conversion = rateMetric(
    fold.variants.map((figures) => ({ users: figures.conversions, exposed: figures.exposed_users })),
    c,
    analysis,
  );
  const trialStarted = rateMetric(
    fold.variants.map((figures) => ({ users: figures.trial_starts, exposed: figures.exposed_users })),
    c,
    analysis,
  );
  const moments = (figures: VariantFigures, r: number): Moments => ({
    n: figures.exposed_users,
    sum: figures.revenue[r]!.total,
    sumOfSquares: figures.revenue[r]!.sum_of_squares,
  });
  const revenue = fold.currencies.map((_, r) => {
    const controlMoments = moments(control, r);
    return {
      uplift: uplifts(
        fold.variants.map((figures, i) => (i === c ? null : meanRelativeEffect(moments(figures, r), controlMoments))),
        analysis,
      ),
      difference: fold.variants.map((figures, i) => (i === c ? null : differenceInference(meanDifference(moments(figures, r), controlMoments), analysis))),
    };
  });
  // A trial test is decided, powered and judged ready on trial starts; the other metrics on conversions.
  const onTrials = read.primaryMetric === 'trial_started';
  const successes = (figures: VariantFigures) => (onTrials ? figures.trial_starts : figures.conversions);
  const primary = read.primaryMetric.startsWith('revenue:')
    ? revenue[fold.currencies.findIndex((entry) => `revenue:${entry.currency}` === read.primaryMetric)]?.uplift
    : (onTrials ? trialStarted : conversion).map((figures) => figures.uplift);
  const totalSuccesses = fold.variants.reduce((sum, figures) => sum + successes(figures), 0);
  const enoughData = fold.variants.every((figures) => figures.exposed_users >= MIN_EXPOSED_PER_VARIANT) && totalSuccesses >= MIN_CONVERSIONS;
  const nc = control.exposed_users;
  const usersNeeded = nc > 0 ? usersNeededPerVariant(successes(control) / nc, read.targetUplift) : null;
  const decision = decide({
    srmOk: srm.ok,
    enoughData,
    metric: read.primaryMetric,
    control: segment.control,
    comparisons: segment.variants.flatMap((id, i) => {
      if (i === c) return [];
      const uplift = primary?.[i] ?? null;
      return [uplift === null ? null : { variant: id, relative: uplift.relative, ci95: uplift.ci95, p_value_adjusted: uplift.p_value_adjusted }];
    }),
    targetUplift: read.targetUplift,
    usersNeeded,
  });
  return {
    paywall_id: paywallId,
    audience,
    phase,
    control: segment.control,
    analysis,
    primary_metric: read.primaryMetric,
    decision,
    power: { target_uplift: read.targetUplift, users_needed_per_variant: usersNeeded },
    conversion_window_hours: read.conversionWindowHours,
    enough_data: enoughData,
    multiple_exposure_users: fold.multiple_exposure_users,
    srm,
    variants: segment.variants.map((id, i) => {
      const figures = fold.variants[i]!;
      const converted = conversion[i]!;
      return {
        variant_id: id,
        exposed_users: figures.exposed_users,
        conversions: figures.conversions,
        conversion_rate: converted.rate,
        conversion_rate_ci95: converted.rate_ci95,
        uplift: converted.uplift,
        p_value: converted.uplift?.p_value ?? null,
        chance_to_beat_control: converted.chance_to_beat_control,
        chance_to_be_best: converted.chance_to_be_best,
        mde_relative: converted.mde_relative,
        trial_starts: figures.trial_starts,
        trial_conversions: figures.trial_conversions,
        trial_started: trialStarted[i]!,
        revenue: figures.revenue.map((entry, r) => {
          const mean = meanInterval(moments(figures, r));
          const difference = revenue[r]!.difference[i]!;
          return {
            currency: entry.currency,
            total: entry.total,
            gross: entry.gross,
            refunded: entry.refunded,
            per_exposed_user: mean?.mean ?? null,
            per_exposed_user_ci95: mean?.ci95 ?? null,
            chance_to_beat_control: i !== c && figures.exposed_users > 0 && nc > 0 ? meanChanceToBeat(moments(figures, r), moments(control, r)) : null,
            uplift: revenue[r]!.uplift[i]!,
            difference: difference === null ? null : { value: difference.value, ci95: difference.ci95 },
            winsorized_at: fold.currencies[r]!.cap,
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
