/**
 * The statistics of net revenue per exposed user in one currency
 * (docs/reference/experiments.md, "Revenue per exposed user"): totals never capped;
 * intervals and tests on the moments the fold gives for inference (capped
 * when winsorizing, CUPED-adjusted when on), and only once each arm has
 * `minPayers` payers: below that, counts and totals only.
 */

import type { VariantRevenue } from '../analytics/fold/fold-types.ts';
import { expectedLoss } from './bayes.ts';
import type { Analysis } from './effects.ts';
import { minimumDetectableEffect } from './power.ts';
import { comparisonsOf, type PlanContext, upliftOf } from './rate-metric.ts';
import { type Design, type MetricLooks, readMetric } from './readout.ts';
import type { Revenue } from './schema.ts';
import { meanChanceToBeat, meanInterval } from './statistics.ts';

/** One currency's figures per variant: `entries` the fold's, `cap` its cap (null: none). */
export function revenueMetric(
  entries: VariantRevenue[],
  cap: number | null,
  metric: MetricLooks,
  design: Design,
  analysis: Analysis,
  context: PlanContext,
  minPayers: number,
): Revenue[] {
  const { c } = design;
  const control = entries[c]!;
  const reads = readMetric(metric, design, analysis);
  const informed = (entry: VariantRevenue) => entry.payers >= minPayers;
  const { n, meanY, m2y } = control.moments;
  return entries.map((entry, i) => {
    const read = reads[i] ?? null;
    const { moments } = entry;
    const plan = { ...context, analysis, comparisons: comparisonsOf(design, i), kind: 'mean' as const, mean: meanY, variance: n > 1 ? m2y / (n - 1) : 0 };
    const perUser = moments.n > 0 ? entry.total / moments.n : null;
    return {
      currency: entry.currency,
      total: entry.total,
      gross: entry.gross,
      refunded: entry.refunded,
      payers: entry.payers,
      per_exposed_user: perUser,
      per_exposed_user_capped: cap === null || moments.n === 0 ? perUser : moments.meanY,
      per_exposed_user_ci95: informed(entry) ? meanInterval(moments) : null,
      chance_to_beat_control: i !== c && informed(entry) && informed(control) ? meanChanceToBeat(moments, control.moments) : null,
      uplift: upliftOf(read),
      difference: read === null ? null : { value: read.test.difference, ci95: read.ci95, p_value: read.p_value, p_value_adjusted: read.p_value_adjusted },
      expected_loss: expectedLoss(read?.test ?? null),
      mde_relative: i === c ? null : minimumDetectableEffect(plan, moments.n, n),
      cap_value: cap,
      users_capped: entry.users_capped,
      winsorized_at: cap,
    };
  });
}
