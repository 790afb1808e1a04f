/**
 * The optional `experiment` object of a paywall document: how results are
 * read (docs/reference/experiments.md). None of it is part of the split, so changing
 * it starts no phase.
 */
import * as v from 'valibot';

/** Metrics a winner must not make significantly worse (docs/reference/experiments.md, "Guardrails"). */
export const GUARDRAIL_METRICS = ['conversion', 'refund_rate', 'trial_cancellation_rate'] as const;

export const ExperimentSettingsSchema = v.strictObject({
  /** The analysis results use unless a request asks otherwise (default sequential: valid at every look). */
  analysis: v.optional(v.picklist(['sequential', 'fixed'], 'Must be "sequential" or "fixed"')),
  /** The metric the decision is taken on: conversion (default), trial started (trial tests) or revenue per exposed user in one currency. */
  primary_metric: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(conversion|trial_started|revenue:[A-Z]{3})$/, 'Must be "conversion", "trial_started" or "revenue:" and a currency such as "revenue:USD"'),
    ),
  ),
  /** The smallest relative lift worth detecting (default 0.10): power planning and the no_difference decision. */
  target_uplift: v.optional(v.pipe(v.number(), v.minValue(0.001), v.maxValue(10))),
  /** Purchases later than this after the user's first exposure do not count. */
  conversion_window_hours: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(24 * 366 * 5))),
  /** Caps each currency's per-user revenue, for inference only, at this nearest-rank percentile of its payers (e.g. 99.9). */
  revenue_winsorize_percentile: v.optional(v.pipe(v.number(), v.minValue(50), v.maxValue(100))),
  /** A winner must not be significantly worse on these (one-sided test at 5 %); default none; each at most once (guardrailErrors). */
  guardrails: v.optional(
    v.pipe(v.array(v.picklist(GUARDRAIL_METRICS, `Must be one of ${GUARDRAIL_METRICS.join(', ')}`)), v.maxLength(GUARDRAIL_METRICS.length)),
  ),
  /** Variance reduction with pre-exposure purchases (default: on when at least 10 % of exposed users have purchased before). */
  cuped: v.optional(v.boolean('Must be true or false')),
  /** Expected loss below which either choice is fine once the planned users are reached (default 0.005: 0.5 % relative). */
  loss_threshold: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  /** Payers each variant needs before revenue gets intervals and tests (default 100). */
  min_payers_per_variant: v.optional(v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(2), v.maxValue(1_000_000))),
});

export type ExperimentSettings = v.InferOutput<typeof ExperimentSettingsSchema>;

/**
 * A guardrail named twice, at its second mention: checked beside the schema
 * rather than in it, so that the document's schema converts to JSON Schema
 * as it is (a valibot check has no JSON Schema form).
 */
export function guardrailErrors(settings: v.InferOutput<typeof ExperimentSettingsSchema> | undefined): { path: string; message: string }[] {
  const seen = new Set<string>();
  return (settings?.guardrails ?? []).flatMap((metric, i) => {
    if (!seen.has(metric)) {
      seen.add(metric);
      return [];
    }
    return [{ path: `/experiment/guardrails/${i}`, message: 'Must not name a metric twice' }];
  });
}
