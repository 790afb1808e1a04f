/**
 * The shapes of experiment results and phases, for the routes and
 * /api/openapi.json. The names are fixed: clients rely on them.
 */
import * as v from 'valibot';

const Interval = v.pipe(v.tuple([v.number(), v.number()]), v.description('95 % interval [low, high]'));
const Weights = v.pipe(v.record(v.string(), v.number()), v.description('variant id → weight in this segment'));

const PhaseSchema = v.object({
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
      seed: v.pipe(
        v.string(),
        v.description("the seed users are hashed with in this phase: the paywall's seed, then '#<number>' for a phase that was reseeded"),
      ),
      weights: v.pipe(Weights, v.description('the default split: variant id → weight')),
      audiences: v.pipe(v.record(v.string(), Weights), v.description('audience id → its weights (each audience is a segment of its own)')),
    }),
  ),
});
export type PhaseList = v.InferOutput<typeof PhaseListSchema>;

export const ResultsQuerySchema = v.object({
  phase: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/, 'must be a phase number'), v.transform(Number), v.description('default: the current phase')),
  ),
  audience: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('an audience id of the phase; default: the default split'))),
  format: v.optional(v.picklist(['json', 'csv'], 'must be json or csv')),
  analysis: v.optional(
    v.pipe(v.picklist(['sequential', 'fixed'], 'must be sequential or fixed'), v.description("overrides the paywall's experiment.analysis for this read")),
  ),
});

const UpliftSchema = v.pipe(
  v.nullable(
    v.object({
      relative: v.pipe(v.number(), v.description('m_v / m_c − 1')),
      ci95: v.pipe(Interval, v.description('r ± half-width of the analysis (delta-method se); the lower bound is never below −1')),
      p_value: v.pipe(v.number(), v.description('from the same r and se: p < 0.05 exactly when ci95 excludes 0')),
      p_value_adjusted: v.pipe(v.number(), v.description('Holm–Bonferroni over the non-control variants of the metric; equals p_value with one')),
    }),
  ),
  v.description('null for the control, and where m_c = 0 or se = 0'),
);
export type Uplift = v.InferOutput<typeof UpliftSchema>;

const RateFiguresSchema = v.object({
  rate: v.pipe(v.nullable(v.number()), v.description('the users who did it / exposed_users; null without exposed users')),
  rate_ci95: v.pipe(v.nullable(Interval), v.description('Wilson score interval')),
  uplift: UpliftSchema,
  chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('P(X_v > X_c), Beta posteriors; null for the control')),
  chance_to_be_best: v.pipe(v.nullable(v.number()), v.description('P(this rate is the largest), Beta posteriors; null without users')),
  mde_relative: v.pipe(v.nullable(v.number()), v.description('smallest relative lift detectable now with 80 % power, two-sided 5 %; null for the control')),
});
export type RateFigures = v.InferOutput<typeof RateFiguresSchema>;

const RevenueSchema = v.object({
  currency: v.string(),
  total: v.pipe(v.number(), v.description('net revenue: client purchases and server sales, minus refunds (docs/revenue.md, "Attribution")')),
  gross: v.pipe(v.number(), v.description('client purchases and server sales')),
  refunded: v.pipe(v.number(), v.description('server refund records')),
  per_exposed_user: v.pipe(v.nullable(v.number()), v.description('net revenue per exposed user')),
  per_exposed_user_ci95: v.nullable(Interval),
  chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('Φ((m_v − m_c)/√(s_v²/n_v + s_c²/n_c)); null for the control')),
  uplift: UpliftSchema,
  difference: v.pipe(
    v.nullable(v.object({ value: v.number(), ci95: Interval })),
    v.description('m_v − m_c with the analysis interval on se = √(s_v²/n_v + s_c²/n_c); null for the control'),
  ),
  winsorized_at: v.pipe(v.nullable(v.number()), v.description("the cap applied to each user's revenue (experiment.revenue_winsorize_percentile); null: none")),
});

const DecisionSchema = v.object({
  status: v.picklist(['srm_failed', 'not_enough_data', 'winner', 'control_best', 'no_difference', 'keep_running']),
  variant: v.pipe(v.nullable(v.string()), v.description('the winner (status winner), else null')),
  reason: v.pipe(v.string(), v.description('one sentence a product manager can act on')),
});

export const ResultsSchema = v.object({
  paywall_id: v.string(),
  audience: v.pipe(v.nullable(v.string()), v.description('null: the default split')),
  phase: PhaseSchema,
  control: v.string(),
  analysis: v.pipe(v.picklist(['sequential', 'fixed']), v.description('the analysis behind intervals and p-values')),
  primary_metric: v.pipe(v.string(), v.description('"conversion", "trial_started" or "revenue:CUR": what the decision is taken on')),
  decision: DecisionSchema,
  power: v.object({
    target_uplift: v.pipe(v.number(), v.description('experiment.target_uplift (default 0.10)')),
    users_needed_per_variant: v.pipe(
      v.nullable(v.number()),
      v.description(
        'exposed users per variant to detect target_uplift over the control\'s conversion rate (its trial start rate when primary_metric is "trial_started") with 80 % power, two-sided 5 %; null while that rate is 0',
      ),
    ),
  }),
  conversion_window_hours: v.nullable(v.number()),
  enough_data: v.pipe(
    v.boolean(),
    v.description(
      'false while a variant has fewer than 100 exposed users or the segment fewer than 10 conversions (10 trial starts when primary_metric is "trial_started")',
    ),
  ),
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
      uplift: UpliftSchema,
      p_value: v.pipe(v.nullable(v.number()), v.description('uplift.p_value')),
      chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('P(X_v > X_c), Beta posteriors; null for the control')),
      chance_to_be_best: v.pipe(v.nullable(v.number()), v.description('P(this rate is the largest), Beta posteriors; null without users')),
      mde_relative: v.pipe(v.nullable(v.number()), v.description('smallest relative lift detectable now with 80 % power, two-sided 5 %; null for the control')),
      trial_starts: v.pipe(v.number(), v.description('exposed users with a trial_started record')),
      trial_conversions: v.pipe(v.number(), v.description('of those, users with a trial_converted record after their trial start')),
      trial_started: v.pipe(
        RateFiguresSchema,
        v.description('the "trial started" metric: trial_starts over exposed_users, with the statistics of conversion (primary_metric "trial_started")'),
      ),
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
