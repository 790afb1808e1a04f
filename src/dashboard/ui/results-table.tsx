import type { JSX } from 'preact';
import { count, percent, type Results, signed } from './results-types.ts';

const interval = (ci: [number, number] | null, format: (n: number) => string) => (ci === null ? '' : `${format(ci[0])} … ${format(ci[1])}`);
const money = (value: number | null) => (value === null ? '—' : value.toFixed(2));
const probability = (value: number | null) => (value === null ? '—' : value < 0.001 ? '< 0.001' : value.toFixed(3));

const points = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(2)} pts`;
const GUARDRAIL_NAMES: Record<string, string> = { conversion: 'Conversion', refund_rate: 'Refund rate', trial_cancellation_rate: 'Trial cancellations' };

type Variant = Results['variants'][number];

/** The primary metric's expected loss of a variant (null for the control and where there is none). */
function lossOf(results: Results, variant: Variant) {
  if (results.primary_metric === 'trial_started') return variant.trial_started.expected_loss;
  if (results.primary_metric.startsWith('revenue:'))
    return variant.revenue.find((entry) => `revenue:${entry.currency}` === results.primary_metric)?.expected_loss ?? null;
  return variant.expected_loss;
}

/** The variants compared with the control: conversion, trial starts (in a trial test), the expected loss, the guardrails and net revenue per currency. */
export function VariantsTable({ results }: { results: Results }): JSX.Element {
  const currencies = [...new Set(results.variants.flatMap((variant) => variant.revenue.map((revenue) => revenue.currency)))];
  const trials = results.primary_metric === 'trial_started' || results.variants.some((variant) => variant.trial_starts > 0);
  const guarded = results.guardrails.metrics.length > 0;
  return (
    <div class="table-wrap">
      <table class="table results-table">
        <caption class="visually-hidden">Variants of phase {results.phase.number}, compared with the control</caption>
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col" class="number">
              Exposed users
            </th>
            <th scope="col" class="number">
              Conversions
            </th>
            <th scope="col" class="number">
              Conversion (95 % interval)
            </th>
            <th scope="col" class="number">
              Uplift (95 % interval)
            </th>
            <th scope="col" class="number">
              p-value (adjusted)
            </th>
            <th scope="col" class="number">
              Chance to be best
            </th>
            <th scope="col" class="number">
              MDE
            </th>
            <th scope="col" class="number">
              Expected loss
            </th>
            {guarded && <th scope="col">Guardrails</th>}
            {trials && (
              <th scope="col" class="number">
                Trial started (95 % interval)
              </th>
            )}
            {currencies.map((currency) => (
              <th key={currency} scope="col" class="number">
                Net revenue per user, {currency}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {results.variants.map((variant) => (
            <tr key={variant.variant_id}>
              <th scope="row" data-label="Variant">
                <code>{variant.variant_id}</code>
                {variant.variant_id === results.control && <span class="badge">control</span>}
                {variant.holdout && <span class="badge">holdout</span>}
              </th>
              <td class="number" data-label="Exposed users">
                {variant.exposed_users}
              </td>
              <td class="number" data-label="Conversions">
                {variant.conversions}
                {variant.trial_starts > 0 && (
                  <div class="muted small">
                    {count(variant.trial_starts, 'trial')}, {variant.trial_conversions} converted
                  </div>
                )}
              </td>
              <td class="number" data-label="Conversion">
                {percent(variant.conversion_rate, 2)}
                <div class="muted small">{interval(variant.conversion_rate_ci95, (n) => percent(n, 2))}</div>
              </td>
              <td class="number" data-label="Uplift">
                {variant.uplift ? signed(variant.uplift.relative) : variant.difference === null ? '—' : points(variant.difference)}
                <div class="muted small">{variant.uplift ? interval(variant.uplift.ci95, signed) : ''}</div>
              </td>
              <td class="number" data-label="p-value (adjusted)">
                {probability(variant.p_value_adjusted)}
                <div class="muted small">{variant.p_value === null ? '' : `raw ${probability(variant.p_value)}`}</div>
              </td>
              <td class="number" data-label="Chance to be best">
                {percent(variant.chance_to_be_best)}
                <div class="muted small">{variant.chance_to_beat_control === null ? '' : `${percent(variant.chance_to_beat_control)} to beat control`}</div>
              </td>
              <td class="number" data-label="MDE">
                {variant.mde_relative === null ? '—' : `±${percent(variant.mde_relative)}`}
              </td>
              <LossCell loss={lossOf(results, variant)} />
              {guarded && <GuardrailCell checks={variant.guardrails} />}
              {trials && <TrialCell trial={variant.trial_started} />}
              {currencies.map((currency) => {
                const revenue = variant.revenue.find((entry) => entry.currency === currency);
                return (
                  <td key={currency} class="number" data-label={`Net revenue per user, ${currency}`}>
                    {money(revenue?.per_exposed_user ?? null)}
                    <div class="muted small">{interval(revenue?.per_exposed_user_ci95 ?? null, money)}</div>
                    {revenue && revenue.payers < results.min_payers_per_variant && (
                      <div class="muted small">
                        {count(revenue.payers, 'payer')}: intervals from {results.min_payers_per_variant}
                      </div>
                    )}
                    {revenue?.uplift && (
                      <div class="muted small">
                        {signed(revenue.uplift.relative)} ({interval(revenue.uplift.ci95, signed)}), p {probability(revenue.uplift.p_value_adjusted)}
                      </div>
                    )}
                    {revenue && (
                      <div class="muted small">
                        net {money(revenue.total)}
                        {revenue.refunded > 0 && ` after ${money(revenue.refunded)} refunded`}
                      </div>
                    )}
                    {revenue?.cap_value != null && (
                      <div class="muted small">
                        intervals on revenue capped at {money(revenue.cap_value)} per user ({count(revenue.users_capped, 'user')} above)
                      </div>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The "trial started" metric of a variant: its rate, then its comparison with the control as the conversion columns show it. */
function TrialCell({ trial }: { trial: Results['variants'][number]['trial_started'] }): JSX.Element {
  return (
    <td class="number" data-label="Trial started">
      {percent(trial.rate, 2)}
      <div class="muted small">{interval(trial.rate_ci95, (n) => percent(n, 2))}</div>
      {trial.uplift && (
        <div class="muted small">
          {signed(trial.uplift.relative)} ({interval(trial.uplift.ci95, signed)}), p {probability(trial.uplift.p_value_adjusted)}
        </div>
      )}
      {trial.chance_to_be_best !== null && <div class="muted small">{percent(trial.chance_to_be_best)} to be best</div>}
    </td>
  );
}

/** The expected loss of shipping a variant and of keeping the control instead, on the primary metric. */
function LossCell({ loss }: { loss: Variant['expected_loss'] }): JSX.Element {
  return (
    <td class="number" data-label="Expected loss">
      {loss === null ? '—' : `ship ${percent(loss.ship, 2)}`}
      {loss && <div class="muted small">keep control {percent(loss.keep_control, 2)}</div>}
    </td>
  );
}

/** Each guardrail of a variant: its rate, and whether the variant is significantly worse on it. */
function GuardrailCell({ checks }: { checks: Variant['guardrails'] }): JSX.Element {
  return (
    <td data-label="Guardrails">
      {checks.map((check) => (
        <div key={check.metric} class={check.failed ? 'guardrail-failed' : 'small'}>
          {GUARDRAIL_NAMES[check.metric]} {percent(check.rate)}
          {check.failed ? ': worse' : check.p_value === null ? '' : ': ok'}
        </div>
      ))}
    </td>
  );
}
