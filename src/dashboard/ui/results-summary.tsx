import type { JSX } from 'preact';
import { count, type DecisionStatus, type Results, signed } from './results-types.ts';

const HEADLINES: Record<DecisionStatus, string> = {
  srm_failed: 'Broken split',
  not_enough_data: 'Not enough data yet',
  winner: 'Winner',
  guardrail_failed: 'Guardrail failed',
  control_best: 'Keep the control',
  no_difference: 'No meaningful difference',
  keep_running: 'Keep running',
};

const TONES: Record<DecisionStatus, string> = {
  srm_failed: 'banner-error',
  not_enough_data: 'banner-info',
  winner: 'banner-success',
  guardrail_failed: 'banner-warning',
  control_best: 'banner-warning',
  no_difference: 'banner-info',
  keep_running: 'banner-info',
};

const DAY_MS = 86_400_000;

/**
 * How many more days the phase needs for `users` exposed users per variant,
 * at the traffic of the phase so far (the smallest variant's users per day).
 */
function daysStillNeeded(results: Results, users: number, now = Date.now()): string {
  const smallest = Math.min(...results.variants.map((variant) => variant.exposed_users));
  if (smallest >= users) return 'every variant has that many already';
  const started = Date.parse(results.phase.started_at);
  const ended = results.phase.ended_at === null ? now : Date.parse(results.phase.ended_at);
  const elapsedDays = Math.max(1 / 24, (ended - started) / DAY_MS);
  const perDay = smallest / elapsedDays;
  if (perDay === 0) return 'no traffic in this phase yet to say how long that takes';
  if (results.phase.ended_at !== null) return `this phase has ended with ${count(smallest, 'user')} in its smallest variant`;
  return `the smallest variant has ${count(smallest, 'user')}: about ${count(Math.ceil((users - smallest) / perDay), 'more day')} at this phase's traffic so far`;
}

/** The decision first, then the analysis used, the power line and how to read the figures. */
export function ResultsSummary({ results }: { results: Results }): JSX.Element {
  const { decision, power } = results;
  const metric =
    results.primary_metric === 'conversion'
      ? 'conversion'
      : results.primary_metric === 'trial_started'
        ? 'trial starts'
        : `revenue per exposed user (${results.primary_metric.slice(8)})`;
  return (
    <>
      <section class={`banner decision ${TONES[decision.status]}`} aria-labelledby="decision-title">
        <h2 id="decision-title">
          Decision: {HEADLINES[decision.status]}
          {decision.variant ? ` — ${decision.variant}` : ''}
        </h2>
        <p>{decision.reason}</p>
        <p class="small">
          On {metric},{' '}
          {results.analysis === 'sequential'
            ? 'sequential analysis (valid however often you look)'
            : 'fixed-horizon analysis (valid for one look at the planned size)'}
          {results.conversion_window_hours === null ? '' : `; purchases within ${results.conversion_window_hours} h of the first exposure`}.
        </p>
      </section>
      <p class="power">
        Power: to detect a {signed(power.target_uplift)} lift with 80 % power,{' '}
        {power.users_needed_per_variant === null
          ? `the control needs ${results.primary_metric === 'trial_started' ? 'trial starts' : 'conversions'} first.`
          : `each variant needs ${count(power.users_needed_per_variant, 'exposed user')}; ${daysStillNeeded(results, power.users_needed_per_variant)}.`}
      </p>
      <details class="how-to-read">
        <summary>How to read these figures</summary>
        <ul>
          <li>
            <strong>Uplift</strong> is the variant's rate relative to the control's, with its 95 % interval. The p-value comes from the same figures: below 0.05
            exactly when the interval leaves out 0.
          </li>
          <li>
            <strong>Sequential</strong> intervals are wider than fixed ones, and in exchange stay valid when you look every day; fixed ones are valid only for
            one look at a size planned in advance.
          </li>
          <li>
            <strong>Adjusted p</strong> (Holm) corrects for comparing several variants with the control; decide on it, not on the raw p-value.
          </li>
          <li>
            <strong>Chance to be best</strong> is the probability that a variant's true rate is the highest of all (Bayesian, uniform prior).
          </li>
          <li>
            <strong>MDE</strong> is the smallest lift the data so far could detect (80 % power); a true lift smaller than that will look like no difference.
          </li>
          <li>
            Only events timed inside this phase count: impressions and purchases sent before it started (
            {results.phase.started_at.slice(0, 16).replace('T', ' ')} UTC), for example before the publish that started it, belong to the phase before or to
            none.
          </li>
        </ul>
        <p class="small">Every formula and its source: docs/experiments.md.</p>
      </details>
    </>
  );
}
