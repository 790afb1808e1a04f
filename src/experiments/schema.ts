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
      ci95: v.pipe(
        Interval,
        v.description(
          "Fieller's interval of the ratio (the same test as p_value, so p < 0.05 exactly when it excludes 0), intersected over the looks of the sequential analysis; never below −1 for a rate",
        ),
      ),
      p_value: v.pipe(v.number(), v.description('the test of the difference (the running minimum over the looks of the sequential analysis)')),
      p_value_adjusted: v.pipe(
        v.number(),
        v.description("Holm–Bonferroni over the decision's family (non-control, non-holdout variants), the holdouts apart; equals p_value with one"),
      ),
    }),
  ),
  v.description("null for the control, where m_c ≤ 0 (see p_value), and where Fieller's interval is unbounded"),
);
export type Uplift = v.InferOutput<typeof UpliftSchema>;

const LossSchema = v.pipe(
  v.nullable(
    v.object({
      ship: v.pipe(v.number(), v.description('E[max(0, −Δ)]: the relative loss expected from shipping this variant if it is worse')),
      keep_control: v.pipe(v.number(), v.description('E[max(0, Δ)]: the relative loss expected from keeping the control if this variant is better')),
    }),
  ),
  v.description('expected loss (GrowthBook risk), Δ ~ N(relative, delta-method se²); null for the control and where the relative effect is'),
);

const comparison = {
  p_value: v.pipe(
    v.nullable(v.number()),
    v.description('the test of the difference of means (pooled variance for a rate; running minimum over the looks when sequential); null for the control'),
  ),
  p_value_adjusted: v.pipe(v.nullable(v.number()), v.description('Holm over the family (or the holdouts); null for the control')),
  expected_loss: LossSchema,
};

const RateFiguresSchema = v.object({
  rate: v.pipe(v.nullable(v.number()), v.description('the users who did it / exposed_users; null without exposed users')),
  rate_ci95: v.pipe(v.nullable(Interval), v.description('Wilson score interval, inside [0, 1]')),
  uplift: UpliftSchema,
  difference: v.pipe(v.nullable(v.number()), v.description('rate_v − rate_c (CUPED-adjusted when cuped.enabled); null for the control')),
  ...comparison,
  chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('P(X_v > X_c), Beta posteriors; null for the control')),
  chance_to_be_best: v.pipe(v.nullable(v.number()), v.description('P(this rate is the largest), Beta posteriors; null without users')),
  mde_relative: v.pipe(
    v.nullable(v.number()),
    v.description('smallest relative lift detectable now with 80 % power, in the analysis used, at α over the comparisons; null for the control'),
  ),
});
export type RateFigures = v.InferOutput<typeof RateFiguresSchema>;

const RevenueSchema = v.object({
  currency: v.string(),
  total: v.pipe(
    v.number(),
    v.description('net revenue: client purchases and server sales, minus refunds (docs/guide/revenue.md, "Attribution"); never capped'),
  ),
  gross: v.pipe(v.number(), v.description('client purchases and server sales; never capped')),
  refunded: v.pipe(v.number(), v.description('server refund records; never capped')),
  payers: v.pipe(v.number(), v.description('exposed users who paid in this currency')),
  per_exposed_user: v.pipe(v.nullable(v.number()), v.description('net revenue per exposed user (total / exposed_users); never capped')),
  per_exposed_user_capped: v.pipe(
    v.nullable(v.number()),
    v.description('the mean the interval and the tests are about: capped at cap_value when winsorizing, else per_exposed_user'),
  ),
  per_exposed_user_ci95: v.pipe(v.nullable(Interval), v.description('around per_exposed_user_capped; null below min_payers_per_variant payers')),
  chance_to_beat_control: v.pipe(
    v.nullable(v.number()),
    v.description('Φ((m_v − m_c)/√(s_v²/n_v + s_c²/n_c)); null for the control and below min_payers_per_variant payers'),
  ),
  uplift: UpliftSchema,
  difference: v.pipe(
    v.nullable(v.object({ value: v.number(), ci95: Interval, p_value: v.number(), p_value_adjusted: v.number() })),
    v.description('m_v − m_c, its Welch interval and test (CUPED-adjusted when on); null for the control and below min_payers_per_variant payers'),
  ),
  expected_loss: LossSchema,
  mde_relative: v.pipe(v.nullable(v.number()), v.description('as for conversion, from the control’s revenue moments; null for the control')),
  cap_value: v.pipe(v.nullable(v.number()), v.description('the cap on per-user revenue for inference (experiment.revenue_winsorize_percentile); null: none')),
  users_capped: v.pipe(v.number(), v.description('exposed users whose net revenue is above cap_value')),
  winsorized_at: v.pipe(v.nullable(v.number()), v.description('cap_value, under its former name')),
});

const GuardrailSchema = v.object({
  metric: v.picklist(['conversion', 'refund_rate', 'trial_cancellation_rate']),
  users: v.pipe(
    v.number(),
    v.description('conversion: converted users; refund_rate: converted users refunded; trial_cancellation_rate: trial starters who cancelled'),
  ),
  out_of: v.pipe(v.number(), v.description('exposed users; converted users; trial starters')),
  rate: v.nullable(v.number()),
  difference: v.pipe(v.nullable(v.number()), v.description('rate_v − rate_c; null for the control')),
  p_value: v.pipe(
    v.nullable(v.number()),
    v.description('one-sided: the variant is worse (lower conversion, more refunds or cancellations); null for the control'),
  ),
  failed: v.pipe(v.boolean(), v.description('p_value < 0.05 (guardrails.alpha)')),
});

const DecisionSchema = v.object({
  status: v.picklist(['srm_failed', 'not_enough_data', 'winner', 'guardrail_failed', 'control_best', 'no_difference', 'keep_running']),
  variant: v.pipe(v.nullable(v.string()), v.description('the winner (status winner), or the variant a guardrail stopped (guardrail_failed), else null')),
  guardrail: v.pipe(v.nullable(v.string()), v.description('the guardrail that failed (status guardrail_failed), else null')),
  reason: v.pipe(v.string(), v.description('one sentence a product manager can act on')),
});

const PowerSchema = v.object({
  target_uplift: v.pipe(v.number(), v.description('experiment.target_uplift (default 0.10)')),
  users_needed_per_variant: v.pipe(
    v.nullable(v.number()),
    v.description(
      "exposed users per variant for 80 % power to detect target_uplift on primary_metric, planned for the analysis used (the confidence sequence's width at the horizon when sequential), at 0.05 / comparisons, with the test's variance under the alternative and CUPED's reduction; null while the control's rate or revenue is 0",
    ),
  ),
  analysis: v.picklist(['sequential', 'fixed']),
  comparisons: v.pipe(v.number(), v.description("comparisons in the decision's family (non-control, non-holdout variants)")),
  variance_reduction: v.pipe(v.number(), v.description('the share of variance CUPED removes from the primary metric, used by the plan (0 when off)')),
  reached: v.pipe(v.boolean(), v.description('every variant of the family and the control have users_needed_per_variant exposed users')),
});

const CupedSchema = v.object({
  enabled: v.pipe(v.boolean(), v.description('CUPED applied to conversion and revenue (experiment.cuped, else history_share ≥ 0.10)')),
  history_share: v.pipe(
    v.nullable(v.number()),
    v.description('share of exposed users with a purchase before their first exposure; null without exposed users'),
  ),
  metrics: v.array(
    v.object({
      metric: v.pipe(v.string(), v.description('"conversion" or "revenue:CUR"')),
      theta: v.pipe(v.number(), v.description('cov(x, y) / var(x), every arm pooled; 0 when off')),
      variance_reduction: v.pipe(v.number(), v.description('corr(x, y)²: the share of variance the covariate removes; 0 when off')),
    }),
  ),
});

const IncrementalitySchema = v.object({
  holdout: v.string(),
  variant: v.pipe(v.string(), v.description('a variant that shows the paywall')),
  relative: v.pipe(v.nullable(v.number()), v.description('m_variant / m_holdout − 1 on primary_metric: what showing the paywall adds')),
  ci95: v.nullable(Interval),
  p_value: v.nullable(v.number()),
});

export const ResultsSchema = v.object({
  paywall_id: v.string(),
  audience: v.pipe(v.nullable(v.string()), v.description('null: the default split')),
  phase: PhaseSchema,
  control: v.string(),
  analysis: v.pipe(v.picklist(['sequential', 'fixed']), v.description('the analysis behind intervals and p-values')),
  primary_metric: v.pipe(v.string(), v.description('"conversion", "trial_started" or "revenue:CUR": what the decision is taken on')),
  decision: DecisionSchema,
  power: PowerSchema,
  cuped: CupedSchema,
  guardrails: v.object({
    metrics: v.pipe(v.array(v.string()), v.description('experiment.guardrails')),
    alpha: v.pipe(v.number(), v.description('the one-sided level of each guardrail test (0.05)')),
  }),
  loss_threshold: v.pipe(v.number(), v.description('experiment.loss_threshold (default 0.005): below it for every variant, either choice is fine')),
  min_payers_per_variant: v.pipe(v.number(), v.description('experiment.min_payers_per_variant (default 100): revenue inference starts there')),
  incrementality: v.pipe(
    v.array(IncrementalitySchema),
    v.description("each holdout against each variant that shows the paywall, out of the decision's family"),
  ),
  conversion_window_hours: v.nullable(v.number()),
  enough_data: v.pipe(
    v.boolean(),
    v.description(
      'false while a variant has fewer than 100 exposed users or the segment fewer than 10 conversions (10 trial starts when primary_metric is "trial_started"), or, on revenue, a variant of the family or the control fewer than min_payers_per_variant payers',
    ),
  ),
  multiple_exposure_users: v.number(),
  srm: v.object({
    p_value: v.pipe(v.nullable(v.number()), v.description("the sequential test's p-value: the running minimum of 1 / Bayes factor over the phase's days")),
    ok: v.pipe(v.nullable(v.boolean()), v.description('p_value ≥ 0.001; null when it cannot be computed')),
    observed: v.record(v.string(), v.number()),
    expected: v.record(v.string(), v.number()),
  }),
  variants: v.array(
    v.object({
      variant_id: v.string(),
      holdout: v.pipe(v.boolean(), v.description("a holdout: compared with the control, but out of the decision's family")),
      exposed_users: v.number(),
      conversions: v.number(),
      conversion_rate: v.nullable(v.number()),
      conversion_rate_ci95: v.pipe(v.nullable(Interval), v.description('Wilson score interval')),
      uplift: UpliftSchema,
      difference: v.pipe(
        v.nullable(v.number()),
        v.description('conversion_rate_v − conversion_rate_c (CUPED-adjusted when cuped.enabled); null for the control'),
      ),
      ...comparison,
      chance_to_beat_control: v.pipe(v.nullable(v.number()), v.description('P(X_v > X_c), Beta posteriors; null for the control')),
      chance_to_be_best: v.pipe(v.nullable(v.number()), v.description('P(this rate is the largest), Beta posteriors; null without users')),
      mde_relative: v.pipe(
        v.nullable(v.number()),
        v.description('smallest relative lift detectable now with 80 % power, in the analysis used, at α over the comparisons; null for the control'),
      ),
      users_with_history: v.pipe(v.number(), v.description('exposed users with a purchase before their first exposure (CUPED)')),
      trial_starts: v.pipe(v.number(), v.description('exposed users with a trial_started record')),
      trial_conversions: v.pipe(v.number(), v.description('of those, users with a trial_converted record after their trial start')),
      trial_cancellations: v.pipe(v.number(), v.description('of those, users with a cancellation record at or after their trial start')),
      refunded_users: v.pipe(v.number(), v.description('converted users with a refund record that counts')),
      trial_started: v.pipe(
        RateFiguresSchema,
        v.description('the "trial started" metric: trial_starts over exposed_users, with the statistics of conversion (primary_metric "trial_started")'),
      ),
      revenue: v.array(RevenueSchema),
      guardrails: v.pipe(v.array(GuardrailSchema), v.description('one per experiment.guardrails entry')),
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
export type Guardrail = v.InferOutput<typeof GuardrailSchema>;
export type Revenue = v.InferOutput<typeof RevenueSchema>;
