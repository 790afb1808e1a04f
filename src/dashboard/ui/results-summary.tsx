import type { JSX } from 'preact';
import { count, type DecisionStatus, percent, type Results, signed } from './results-types.ts';

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

const GUARDRAILS: Record<string, string> = { conversion: 'conversion', refund_rate: 'refund rate', trial_cancellation_rate: 'trial cancellation rate' };

/** "a", "a and b", "a, b and c". */
const listed = (items: string[]) => (items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

function metricName(primary: string): string {
  return primary === 'conversion' ? 'conversion' : primary === 'trial_started' ? 'trial starts' : `revenue per exposed user (${primary.slice(8)})`;
}

/** The primary metric's figures of a variant that the decision box quotes. */
function primaryOf(results: Results, variant: Results['variants'][number]) {
  if (results.primary_metric === 'trial_started') return variant.trial_started;
  if (results.primary_metric.startsWith('revenue:')) return variant.revenue.find((entry) => `revenue:${entry.currency}` === results.primary_metric) ?? null;
  return variant;
}

/** What the guardrails say, in one sentence; null without guardrails. */
function guardrailLine(results: Results): string | null {
  const names = results.guardrails.metrics.map((metric) => GUARDRAILS[metric] ?? metric);
  if (names.length === 0) return null;
  const failed = results.variants.flatMap((variant) =>
    variant.guardrails
      .filter((check) => check.failed)
      .map((check) => `${GUARDRAILS[check.metric]} is significantly worse for ${variant.variant_id} (${percent(check.rate)})`),
  );
  if (failed.length > 0) return `Guardrails: ${listed(failed)}; a variant worse on a guardrail is not a winner.`;
  return `Guardrails: ${listed(names)}; no variant is significantly worse on ${names.length === 1 ? 'it' : 'any of them'} (one-sided test at ${percent(results.guardrails.alpha, 0)}).`;
}

/** Whether CUPED is on, why, and what it buys, in one sentence. */
function cupedLine(results: Results): string {
  const { cuped } = results;
  const share = cuped.history_share === null ? null : percent(cuped.history_share, 0);
  if (!cuped.enabled) {
    return share === null
      ? 'Variance reduction (CUPED) is off: nobody is exposed yet.'
      : `Variance reduction (CUPED) is off: ${share} of exposed users bought before they saw the paywall${cuped.history_share !== null && cuped.history_share >= 0.1 ? ' (it is turned off in the experiment settings)' : ' (it turns on from 10 %)'}.`;
  }
  const gains = cuped.metrics
    .filter((entry) => entry.variance_reduction > 0)
    .map((entry) => `${entry.metric === 'conversion' ? 'conversion' : entry.metric.slice(8)} ${percent(1 - Math.sqrt(1 - entry.variance_reduction))}`);
  return `Variance reduction (CUPED) is on: ${share} of exposed users bought before they saw the paywall, which narrows the intervals by ${gains.length > 0 ? listed(gains) : 'nothing yet'}.`;
}

/** The expected loss of shipping the most promising variant, in one sentence; null while none has one. */
function lossLine(results: Results): string | null {
  const candidates = results.variants.flatMap((variant) => {
    const loss = variant.holdout ? null : (primaryOf(results, variant)?.expected_loss ?? null);
    return loss === null ? [] : [{ id: variant.variant_id, loss }];
  });
  if (candidates.length === 0) return null;
  const best = candidates.reduce((a, b) => (b.loss.ship < a.loss.ship ? b : a));
  return `Expected loss: shipping ${best.id} costs ${percent(best.loss.ship, 2)} of ${metricName(results.primary_metric)} on average if it is in fact worse; keeping the control costs ${percent(best.loss.keep_control, 2)} if ${best.id} is in fact better. Once the planned users are in and both are below ${percent(results.loss_threshold, 1)}, either choice is fine.`;
}

/** The power line: the plan of the analysis used, and the days it still needs. */
function powerLine(results: Results): string {
  const { power } = results;
  const how = [
    power.analysis === 'sequential' ? 'sequential analysis, daily looks' : 'fixed horizon',
    ...(power.comparisons > 1 ? [`${power.comparisons} comparisons`] : []),
    ...(power.variance_reduction > 0 ? [`CUPED removes ${percent(power.variance_reduction)} of the variance`] : []),
  ].join(', ');
  const first = results.primary_metric === 'trial_started' ? 'trial starts' : results.primary_metric.startsWith('revenue:') ? 'revenue' : 'conversions';
  return `Power: to detect a ${signed(power.target_uplift)} lift with 80 % power (${how}), ${
    power.users_needed_per_variant === null
      ? `the control needs ${first} first.`
      : `each variant needs ${count(power.users_needed_per_variant, 'exposed user')}; ${daysStillNeeded(results, power.users_needed_per_variant)}.`
  }`;
}

/** The decision first, with its guardrails, CUPED and the expected loss; then the power line and how to read the figures. */
export function ResultsSummary({ results }: { results: Results }): JSX.Element {
  const { decision } = results;
  const metric = metricName(results.primary_metric);
  const guardrails = guardrailLine(results);
  const loss = lossLine(results);
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
            ? 'sequential analysis (valid however often you look; a decision once reached stays)'
            : 'fixed-horizon analysis (valid for one look at the planned size)'}
          {results.conversion_window_hours === null ? '' : `; purchases within ${results.conversion_window_hours} h of the first exposure`}.
          {results.primary_metric.startsWith('revenue:') &&
            ` Revenue counts what users pay, not only whether they pay, but it varies far more from user to user than conversion: it needs more users, and ${results.min_payers_per_variant} payers in every variant before any interval.`}
        </p>
        {guardrails && <p class="small guardrails">{guardrails}</p>}
        <p class="small cuped">{cupedLine(results)}</p>
        {loss && <p class="small loss">{loss}</p>}
      </section>
      <p class="power">{powerLine(results)}</p>
      <details class="how-to-read">
        <summary>How to read these figures</summary>
        <ul>
          <li>
            <strong>Uplift</strong> is the variant's rate relative to the control's, with its 95 % interval. The p-value comes from the same test: below 0.05
            exactly when the interval leaves out 0. Without an uplift (a control at 0 %), the difference in points is shown.
          </li>
          <li>
            <strong>Sequential</strong> intervals are wider than fixed ones, and in exchange stay valid when you look every day; fixed ones are valid only for
            one look at a size planned in advance.
          </li>
          <li>
            <strong>Adjusted p</strong> (Holm) corrects for comparing several variants with the control; decide on it, not on the raw p-value. Holdouts are
            compared apart: they say what showing the paywall adds, not which variant to ship.
          </li>
          <li>
            <strong>Expected loss</strong> is what a choice costs on average if it turns out wrong: small for both choices means the difference is too small to
            matter.
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
        <p class="small">Every formula and its source: docs/reference/experiments.md.</p>
      </details>
    </>
  );
}
