/**
 * The shapes of experiment results and phases (issue 12 fixes the names, so
 * that clients can rely on them), for the routes and /api/openapi.json.
 */
import * as v from 'valibot';

const Interval = v.pipe(v.tuple([v.number(), v.number()]), v.description('95 % interval [low, high]'));
const Weights = v.pipe(v.record(v.string(), v.number()), v.description('variant id → weight in this segment'));

export const PhaseSchema = v.object({
  number: v.number(),
  started_at: v.pipe(v.string(), v.isoTimestamp()),
  ended_at: v.pipe(v.nullable(v.pipe(v.string(), v.isoTimestamp())), v.description('null for the current phase')),
  revision: v.pipe(v.number(), v.description('the revision whose publication started the phase')),
  weights: Weights,
});

export const PhaseListSchema = v.object({
  phases: v.array(
    v.object({
      ...PhaseSchema.entries,
      weights: v.pipe(Weights, v.description('the default split: variant id → weight')),
      audiences: v.pipe(v.record(v.string(), Weights), v.description('audience id → its weights (each audience is a segment of its own)')),
    }),
  ),
});

export const ResultsQuerySchema = v.object({
  phase: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/, 'must be a phase number'), v.transform(Number), v.description('default: the current phase')),
  ),
  audience: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('an audience id of the phase; default: the default split'))),
  format: v.optional(v.picklist(['json', 'csv'], 'must be json or csv')),
});

const RevenueSchema = v.object({
  currency: v.string(),
  total: v.number(),
  per_exposed_user: v.nullable(v.number()),
  per_exposed_user_ci95: v.nullable(Interval),
  chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('Φ((m_v − m_c)/√(s_v²/n_v + s_c²/n_c)); null for the control')),
});

export const ResultsSchema = v.object({
  paywall_id: v.string(),
  audience: v.pipe(v.nullable(v.string()), v.description('null: the default split')),
  phase: PhaseSchema,
  control: v.string(),
  enough_data: v.pipe(v.boolean(), v.description('false while a variant has fewer than 100 exposed users or the segment fewer than 10 conversions')),
  multiple_exposure_users: v.number(),
  srm: v.object({
    p_value: v.nullable(v.number()),
    ok: v.pipe(v.nullable(v.boolean()), v.description('p_value ≥ 0.001; null when it cannot be computed')),
    observed: v.record(v.string(), v.number()),
    expected: v.record(v.string(), v.number()),
  }),
  variants: v.array(
    v.object({
      variant_id: v.string(),
      exposed_users: v.number(),
      conversions: v.number(),
      conversion_rate: v.nullable(v.number()),
      conversion_rate_ci95: v.pipe(v.nullable(Interval), v.description('Wilson score interval')),
      uplift: v.pipe(
        v.nullable(v.object({ relative: v.number(), ci95: Interval })),
        v.description('p_v / p_c − 1, delta-method interval; null for the control'),
      ),
      p_value: v.pipe(v.nullable(v.number()), v.description('two-sided pooled two-proportion z-test; null for the control')),
      chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('P(X_v > X_c), Beta posteriors; null for the control')),
      revenue: v.array(RevenueSchema),
    }),
  ),
  days: v.array(
    v.object({
      day: v.pipe(v.string(), v.isoDate()),
      variants: v.pipe(
        v.record(v.string(), v.object({ exposed_users: v.number(), conversions: v.number() })),
        v.description('cumulative up to the end of the day'),
      ),
    }),
  ),
});
export type Results = v.InferOutput<typeof ResultsSchema>;
export type Phase = v.InferOutput<typeof PhaseSchema>;
