/**
 * The looks of each metric from a fold (readout.ts): the fold's days, each
 * cumulative to its end, then now; and when a look may be read. A rate's
 * past look needs what `enough_data` needs now (100 exposed users per
 * variant, 10 events in the segment); a revenue look, at any time, the
 * payers of min_payers_per_variant in both arms compared.
 */

import type { FoldResult } from '../analytics/fold/fold-types.ts';
import { rateMoments } from './cuped.ts';
import type { MetricLooks } from './readout.ts';

/** Below these, `enough_data` is false: too few users or conversions for the statistics to mean much (docs/reference/experiments.md). */
const MIN_EXPOSED_PER_VARIANT = 100;
const MIN_CONVERSIONS = 10;

/** Whether exposures and events are enough for the statistics of a rate: every variant 100 exposed users, the segment 10 events. */
export function enoughRateData(exposed: number[], events: number[]): boolean {
  return exposed.every((n) => n >= MIN_EXPOSED_PER_VARIANT) && events.reduce((a, b) => a + b, 0) >= MIN_CONVERSIONS;
}

/** Conversion (with its covariate, a purchase before the exposure, when `adjusted`) or trial starts. */
export function rateLooks(fold: FoldResult, series: 'conversions' | 'trial_starts', adjusted: boolean): MetricLooks {
  const covariate = adjusted && series === 'conversions';
  const days = fold.days.map((day) =>
    day.exposed_users.map((n, v) => rateMoments(day[series][v]!, n, covariate ? day.history[v]! : 0, covariate ? day.converted_with_history[v]! : 0)),
  );
  const now = fold.variants.map((f) => rateMoments(f[series], f.exposed_users, covariate ? f.history : 0, covariate ? f.converted_with_history : 0));
  const looks = [...days, now];
  const ready = looks.map((look) =>
    enoughRateData(
      look.map((p) => p.n),
      look.map((p) => Math.round(p.meanY * p.n)),
    ),
  );
  // Now is always read (enough_data and the decision say whether to trust it); a past look only with enough data.
  return { kind: 'rate', looks, adjusted: covariate, ready: (look) => look === looks.length - 1 || ready[look]! };
}

/** Revenue in the fold's currency r, with its covariate (what users spent before their exposure) when `adjusted`. */
export function revenueLooks(fold: FoldResult, r: number, adjusted: boolean, minPayers: number): MetricLooks {
  const days = fold.days.map((day) => day.revenue[r]!);
  const now = fold.variants.map((f) => ({ payers: f.revenue[r]!.payers, moments: f.revenue[r]!.moments }));
  const all = [...days, now];
  return {
    kind: 'mean',
    looks: all.map((look) => look.map((entry) => entry.moments)),
    adjusted,
    ready: (look, i, c) => all[look]![i]!.payers >= minPayers && all[look]![c]!.payers >= minPayers,
  };
}
