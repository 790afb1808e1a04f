/**
 * Guardrails (docs/reference/experiments.md, "Guardrails"): metrics a winner must not
 * make significantly worse. Each is a rate compared with the control by the
 * pooled test of the analysis used, one-sided (is the variant worse?) at
 * its own α, not adjusted for the number of guardrails: a guardrail errs on
 * the side of stopping a launch.
 */

import type { VariantFigures } from '../analytics/fold/fold-types.ts';
import type { GUARDRAIL_METRICS } from '../paywalls/document/experiment.ts';
import { rateMoments } from './cuped.ts';
import { type Analysis, oneSidedWorse } from './effects.ts';
import { type Design, type MetricLooks, testAt } from './readout.ts';
import type { Guardrail } from './schema.ts';

/** The one-sided level of each guardrail test. */
export const GUARDRAIL_ALPHA = 0.05;

type GuardrailMetric = (typeof GUARDRAIL_METRICS)[number];

/** What a guardrail counts, out of what, and which way is worse (+1: more is worse). */
const COUNTS: Record<GuardrailMetric, { users: (f: VariantFigures) => number; outOf: (f: VariantFigures) => number; worse: 1 | -1 }> = {
  conversion: { users: (f) => f.conversions, outOf: (f) => f.exposed_users, worse: -1 },
  refund_rate: { users: (f) => f.refunded_users, outOf: (f) => f.conversions, worse: 1 },
  trial_cancellation_rate: { users: (f) => f.trial_cancellations, outOf: (f) => f.trial_starts, worse: 1 },
};

/**
 * Per variant, one entry per guardrail: its rate, and for the variants of
 * the family the one-sided test against the control. Conversion is tested
 * as the conversion metric is (`conversion`: with CUPED when on); the other
 * two on their own counts now.
 */
export function guardrails(metrics: GuardrailMetric[], figures: VariantFigures[], design: Design, analysis: Analysis, conversion: MetricLooks): Guardrail[][] {
  const { c } = design;
  return figures.map((variant, i) =>
    metrics.map((metric) => {
      const { users, outOf, worse } = COUNTS[metric];
      const out = outOf(variant);
      const entry = { metric, users: users(variant), out_of: out, rate: out > 0 ? users(variant) / out : null, difference: null, p_value: null, failed: false };
      if (!design.family.includes(i)) return entry;
      const looks: MetricLooks =
        metric === 'conversion'
          ? { ...conversion, looks: [conversion.looks.at(-1)!] }
          : { kind: 'rate', adjusted: false, ready: () => true, looks: [figures.map((f) => rateMoments(users(f), outOf(f)))] };
      const test = testAt(looks, 0, i, c, analysis);
      if (test === null) return entry;
      const p = oneSidedWorse(test, worse, analysis, out + outOf(figures[c]!));
      return { ...entry, difference: test.difference, p_value: p, failed: p < GUARDRAIL_ALPHA };
    }),
  );
}
