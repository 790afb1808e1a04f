/**
 * Experiment results of one phase and segment: the segment's design (its
 * variants, weights, control and holdouts) read from the phase, and every
 * figure of docs/reference/experiments.md computed from the counts the event writer
 * folded (the metrics' figures in rate-metric.ts and revenue-metric.ts, the
 * decision in decision.ts, what it is planned and judged on here).
 */

import type { FoldResult, VariantFigures } from '../analytics/fold/fold-types.ts';
import type { ExperimentSettings } from '../paywalls/document/experiment.ts';
import { NO_ADJUSTMENT } from './cuped.ts';
import { decide } from './decision.ts';
import type { Analysis } from './effects.ts';
import { GUARDRAIL_ALPHA, guardrails } from './guardrails.ts';
import { enoughRateData, rateLooks, revenueLooks } from './metric-looks.ts';
import type { PhaseDesign } from './phases.ts';
import { type PlanInput, usersNeededPerVariant } from './power.ts';
import { rateMetric } from './rate-metric.ts';
import { type Design, lookAdjustment, type MetricLooks, testAt } from './readout.ts';
import { revenueMetric } from './revenue-metric.ts';
import type { Phase, Results } from './schema.ts';
import { bucketShares, sampleRatioMismatch } from './srm.ts';

interface SegmentDesign {
  /** Variants users of the segment can get (weight > 0), in document order. */
  variants: string[];
  weights: Record<string, number>;
  control: string;
  /** The holdouts among `variants`. */
  holdouts: string[];
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
    holdouts: listed.filter((variant) => variant.holdout && variant.id !== control.id).map((variant) => variant.id),
  };
}

/** How the results are read: the paywall's experiment settings, with the request's analysis override applied. */
interface ReadSettings {
  analysis: Analysis;
  primaryMetric: string;
  targetUplift: number;
  conversionWindowHours: number | null;
  guardrails: NonNullable<ExperimentSettings['guardrails']>;
  /** true or false when set; undefined: on when at least 10 % of exposed users have history. */
  cuped: boolean | undefined;
  lossThreshold: number;
  minPayers: number;
}

const DEFAULT_TARGET_UPLIFT = 0.1;
const DEFAULT_LOSS_THRESHOLD = 0.005;
const DEFAULT_MIN_PAYERS = 100;
/** CUPED is on by default from this share of exposed users with a purchase before their exposure. */
const CUPED_HISTORY_SHARE = 0.1;

export function readSettings(settings: ExperimentSettings | undefined, override: Analysis | undefined): ReadSettings {
  return {
    analysis: override ?? settings?.analysis ?? 'sequential',
    primaryMetric: settings?.primary_metric ?? 'conversion',
    targetUplift: settings?.target_uplift ?? DEFAULT_TARGET_UPLIFT,
    conversionWindowHours: settings?.conversion_window_hours ?? null,
    guardrails: settings?.guardrails ?? [],
    cuped: settings?.cuped,
    lossThreshold: settings?.loss_threshold ?? DEFAULT_LOSS_THRESHOLD,
    minPayers: settings?.min_payers_per_variant ?? DEFAULT_MIN_PAYERS,
  };
}

export function buildResults(paywallId: string, audience: string | null, phase: Phase, segment: SegmentDesign, fold: FoldResult, read: ReadSettings): Results {
  const { analysis } = read;
  const ids = segment.variants;
  const c = ids.indexOf(segment.control);
  const holdouts = segment.holdouts.map((id) => ids.indexOf(id));
  const design: Design = { c, holdouts, family: ids.flatMap((_, i) => (i === c || holdouts.includes(i) ? [] : [i])) };
  const exposed = fold.variants.map((figures) => figures.exposed_users);
  const everyone = exposed.reduce((a, b) => a + b, 0);
  const historyShare = everyone === 0 ? null : fold.variants.reduce((sum, figures) => sum + figures.history, 0) / everyone;
  const cuped = read.cuped ?? (historyShare !== null && historyShare >= CUPED_HISTORY_SHARE);
  const srm = sampleRatioMismatch(ids, bucketShares(ids.map((id) => segment.weights[id]!)), [...fold.days.map((day) => day.exposed_users), exposed]);
  const now = (looks: MetricLooks) => (looks.adjusted ? lookAdjustment(looks, looks.looks.length - 1) : NO_ADJUSTMENT);
  // The sequential readout looks once a day: its power counts the looks the phase's traffic so far gives up to the horizon.
  const shown = [c, ...design.family];
  const perLook = analysis === 'sequential' && fold.days.length > 0 ? Math.max(1, Math.min(...shown.map((i) => exposed[i]!)) / fold.days.length) : null;
  const conversionLooks = rateLooks(fold, 'conversions', cuped);
  const conversionReduction = now(conversionLooks).reduction;
  const conversion = rateMetric(
    fold.variants.map((figures) => ({ users: figures.conversions, exposed: figures.exposed_users })),
    conversionLooks,
    design,
    analysis,
    { reduction: conversionReduction, perLook },
  );
  const trialLooks = rateLooks(fold, 'trial_starts', false);
  const trialStarted = rateMetric(
    fold.variants.map((figures) => ({ users: figures.trial_starts, exposed: figures.exposed_users })),
    trialLooks,
    design,
    analysis,
    { reduction: 0, perLook },
  );
  const revenue = fold.currencies.map(({ currency, cap }, r) => {
    const looks = revenueLooks(fold, r, cuped, read.minPayers);
    const { theta, reduction } = now(looks);
    const figures = revenueMetric(
      fold.variants.map((figures) => figures.revenue[r]!),
      cap,
      looks,
      design,
      analysis,
      { reduction, perLook },
      read.minPayers,
    );
    return { metric: `revenue:${currency}`, looks, theta, reduction, figures };
  });
  // A trial test is decided, powered and judged ready on trial starts; the other metrics on conversions, revenue also on its payers.
  const onTrials = read.primaryMetric === 'trial_started';
  const onRevenue = read.primaryMetric.startsWith('revenue:');
  const primaryRevenue = revenue.find((entry) => entry.metric === read.primaryMetric);
  const primaryRates = onTrials ? trialStarted : conversion;
  const primaryLooks = onRevenue ? (primaryRevenue?.looks ?? null) : onTrials ? trialLooks : conversionLooks;
  const payers = (i: number) => primaryRevenue?.figures[i]?.payers ?? 0;
  const fewPayers = onRevenue && shown.some((i) => payers(i) < read.minPayers) ? { minimum: read.minPayers } : null;
  const enoughData = enoughRateData(exposed, fold.variants.map(onTrials ? (f) => f.trial_starts : (f) => f.conversions)) && fewPayers === null;
  const control = fold.variants[c]!;
  const plan: PlanInput = {
    analysis,
    comparisons: Math.max(1, design.family.length),
    kind: onRevenue ? 'mean' : 'rate',
    mean: 0,
    variance: 0,
    reduction: onRevenue ? (primaryRevenue?.reduction ?? 0) : onTrials ? 0 : conversionReduction,
    perLook,
  };
  if (onRevenue) {
    const moments = control.revenue.find((entry) => `revenue:${entry.currency}` === read.primaryMetric)?.moments;
    if (moments && moments.n > 1) Object.assign(plan, { mean: moments.meanY, variance: moments.m2y / (moments.n - 1) });
  } else if (control.exposed_users > 0) plan.mean = (onTrials ? control.trial_starts : control.conversions) / control.exposed_users;
  const usersNeeded = usersNeededPerVariant(plan, read.targetUplift);
  const planReached = usersNeeded !== null && shown.every((i) => exposed[i]! >= usersNeeded);
  const checks = guardrails(read.guardrails, fold.variants, design, analysis, conversionLooks);
  const decision = decide({
    srmOk: srm.ok,
    enoughData,
    fewPayers,
    metric: read.primaryMetric,
    control: segment.control,
    comparisons: design.family.map((i) => {
      const primary = onRevenue ? revenueView(primaryRevenue?.figures[i]) : primaryRates[i]!;
      if (primary.difference === null || primary.p_value_adjusted === null) return null;
      return {
        variant: ids[i]!,
        difference: primary.difference,
        relative: primary.uplift?.relative ?? null,
        ci95: primary.uplift?.ci95 ?? null,
        p_value_adjusted: primary.p_value_adjusted,
        loss: primary.expected_loss,
        failedGuardrail: checks[i]!.find((check) => check.failed)?.metric ?? null,
      };
    }),
    targetUplift: read.targetUplift,
    usersNeeded,
    planReached,
    lossThreshold: read.lossThreshold,
  });
  return {
    paywall_id: paywallId,
    audience,
    phase,
    control: segment.control,
    analysis,
    primary_metric: read.primaryMetric,
    decision,
    power: {
      target_uplift: read.targetUplift,
      users_needed_per_variant: usersNeeded,
      analysis,
      comparisons: plan.comparisons,
      variance_reduction: plan.reduction,
      reached: planReached,
    },
    cuped: {
      enabled: cuped,
      history_share: historyShare,
      metrics: [
        { metric: 'conversion', theta: now(conversionLooks).theta, variance_reduction: conversionReduction },
        ...revenue.map(({ metric, theta, reduction }) => ({ metric, theta, variance_reduction: reduction })),
      ],
    },
    guardrails: { metrics: read.guardrails, alpha: GUARDRAIL_ALPHA },
    loss_threshold: read.lossThreshold,
    min_payers_per_variant: read.minPayers,
    incrementality: primaryLooks === null ? [] : incrementality(primaryLooks, design, ids, analysis),
    conversion_window_hours: read.conversionWindowHours,
    enough_data: enoughData,
    multiple_exposure_users: fold.multiple_exposure_users,
    srm,
    variants: ids.map((id, i) => variantEntry(id, fold.variants[i]!, conversion[i]!, trialStarted[i]!, revenue, i, holdouts.includes(i), checks[i]!)),
    days: fold.days.map((day) => {
      const variants: Results['days'][number]['variants'] = Object.create(null);
      ids.forEach((id, i) => {
        variants[id] = { exposed_users: day.exposed_users[i]!, conversions: day.conversions[i]! };
      });
      return { day: day.day, variants };
    }),
  };
}

/** Each holdout against each variant that shows the paywall, on the primary metric now: what showing it adds. */
function incrementality(looks: MetricLooks, design: Design, ids: string[], analysis: Analysis): Results['incrementality'] {
  const last = looks.looks.length - 1;
  return design.holdouts.flatMap((h) =>
    [design.c, ...design.family].map((i) => {
      const test = looks.ready(last, i, h) ? testAt(looks, last, i, h, analysis) : null;
      return { holdout: ids[h]!, variant: ids[i]!, relative: test?.relative ?? null, ci95: test?.relativeCi ?? null, p_value: test?.p_value ?? null };
    }),
  );
}

type RateFigures = Results['variants'][number]['trial_started'];
type Revenue = Results['variants'][number]['revenue'][number];

/** What the decision reads of a revenue comparison, as of a rate's. */
function revenueView(figures: Revenue | undefined): Pick<RateFigures, 'difference' | 'p_value_adjusted' | 'uplift' | 'expected_loss'> {
  const test = figures?.difference ?? null;
  return {
    difference: test?.value ?? null,
    p_value_adjusted: test?.p_value_adjusted ?? null,
    uplift: figures?.uplift ?? null,
    expected_loss: figures?.expected_loss ?? null,
  };
}

function variantEntry(
  id: string,
  figures: VariantFigures,
  converted: RateFigures,
  trialStarted: RateFigures,
  revenue: { figures: Revenue[] }[],
  i: number,
  holdout: boolean,
  checks: Results['variants'][number]['guardrails'],
): Results['variants'][number] {
  return {
    variant_id: id,
    holdout,
    exposed_users: figures.exposed_users,
    conversions: figures.conversions,
    conversion_rate: converted.rate,
    conversion_rate_ci95: converted.rate_ci95,
    uplift: converted.uplift,
    difference: converted.difference,
    p_value: converted.p_value,
    p_value_adjusted: converted.p_value_adjusted,
    expected_loss: converted.expected_loss,
    chance_to_beat_control: converted.chance_to_beat_control,
    chance_to_be_best: converted.chance_to_be_best,
    mde_relative: converted.mde_relative,
    users_with_history: figures.history,
    trial_starts: figures.trial_starts,
    trial_conversions: figures.trial_conversions,
    trial_cancellations: figures.trial_cancellations,
    refunded_users: figures.refunded_users,
    trial_started: trialStarted,
    revenue: revenue.map((entry) => entry.figures[i]!),
    guardrails: checks,
  };
}
