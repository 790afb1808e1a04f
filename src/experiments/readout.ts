/**
 * The comparisons of one metric with the control, read over the phase's
 * looks (docs/reference/experiments.md, "A readout that does not flip back"): under
 * the sequential analysis, the test at the end of each day the fold counted
 * and now; the p-value is the running minimum over those looks and each
 * interval the running intersection, both as valid as one look (the
 * confidence sequence holds at every look at once), so a decision once
 * reached stays. The fixed analysis reads now only. Holm adjusts the
 * decision's family (non-control, non-holdout variants) and the holdouts'
 * comparisons apart.
 */
import { type Adjustment, meanArm, NO_ADJUSTMENT, type Paired, pooledAdjustment, pooledArms } from './cuped.ts';
import { type Analysis, compareArms, holm, type Interval, type Test } from './effects.ts';

/** One metric at every look: each day's end, then now (last). */
export interface MetricLooks {
  /** A rate (pooled test) or a mean (Welch test). */
  kind: 'rate' | 'mean';
  /** Per look, per variant. */
  looks: Paired[][];
  /** Whether a look tells enough about variant i and the control c to be read. */
  ready: (look: number, i: number, c: number) => boolean;
  /** CUPED on this metric. */
  adjusted: boolean;
}

/** The segment's variants as the readout groups them: the control, the decision's family and the holdouts (indices). */
export interface Design {
  c: number;
  family: number[];
  holdouts: number[];
}

export interface Read {
  /** The test at the current look. */
  test: Test;
  /** The running minimum (sequential) or the current p-value (fixed). */
  p_value: number;
  p_value_adjusted: number;
  /** The difference's and the relative effect's intervals, intersected over the looks. */
  ci95: Interval;
  relativeCi: Interval | null;
}

function intersect(a: Interval | null, b: Interval | null): Interval | null {
  if (a === null) return b;
  if (b === null) return a;
  return [Math.max(a[0], b[0]), Math.min(a[1], b[1])];
}

/** The adjustment of one look: θ from every arm pooled, when CUPED is on. */
export function lookAdjustment(metric: MetricLooks, look: number): Adjustment {
  return metric.adjusted ? pooledAdjustment(metric.looks[look]!) : NO_ADJUSTMENT;
}

/** The test of variant i against the control c at one look, or null where it cannot be computed. */
export function testAt(metric: MetricLooks, look: number, i: number, c: number, analysis: Analysis, adjustment = lookAdjustment(metric, look)): Test | null {
  const arms = metric.looks[look]!;
  if (metric.kind === 'rate') {
    const [v, control] = pooledArms(arms[i]!, arms[c]!, adjustment);
    return compareArms(v, control, analysis);
  }
  const v = meanArm(arms[i]!, adjustment);
  const control = meanArm(arms[c]!, adjustment);
  // Net revenue may be negative (a refund of a purchase before the exposure): the ratio has no floor.
  return v === null || control === null ? null : compareArms(v, control, analysis, false);
}

/** Variant i against the control over the looks (null when the current look cannot be read). */
function readOne(metric: MetricLooks, i: number, c: number, analysis: Analysis, adjustments: Adjustment[]): Omit<Read, 'p_value_adjusted'> | null {
  const now = metric.looks.length - 1;
  if (!metric.ready(now, i, c)) return null;
  const test = testAt(metric, now, i, c, analysis, adjustments[now]);
  if (test === null) return null;
  let p = test.p_value;
  let ci: Interval = test.ci95;
  let relative = test.relativeCi;
  if (analysis === 'sequential') {
    for (let look = 0; look < now; look++) {
      if (!metric.ready(look, i, c)) continue;
      const earlier = testAt(metric, look, i, c, analysis, adjustments[look]);
      if (earlier === null) continue;
      p = Math.min(p, earlier.p_value);
      ci = intersect(ci, earlier.ci95)!;
      relative = intersect(relative, earlier.relativeCi);
    }
    // Intervals that do not meet say the effect moved during the phase: the current look's stand (docs/reference/experiments.md).
    if (ci[0] > ci[1]) ci = test.ci95;
    if (relative !== null && relative[0] > relative[1]) relative = test.relativeCi;
  }
  return { test, p_value: p, ci95: ci, relativeCi: test.relative === null ? null : relative };
}

/** Every non-control variant's read (null for the control and where it cannot be computed), Holm-adjusted per group. */
export function readMetric(metric: MetricLooks, design: Design, analysis: Analysis): (Read | null)[] {
  const k = metric.looks[0]!.length;
  const adjustments = metric.looks.map((_, look) => (analysis === 'fixed' && look < metric.looks.length - 1 ? NO_ADJUSTMENT : lookAdjustment(metric, look)));
  const reads: (Read | null)[] = Array.from({ length: k }, () => null);
  for (const group of [design.family, design.holdouts]) {
    const found = group.map((i) => readOne(metric, i, design.c, analysis, adjustments));
    const adjusted = holm(found.map((read) => read?.p_value ?? null));
    group.forEach((i, j) => {
      const read = found[j];
      if (read) reads[i] = { ...read, p_value_adjusted: adjusted[j]! };
    });
  }
  return reads;
}
