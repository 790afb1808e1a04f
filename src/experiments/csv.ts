/**
 * The variants table of the results as CSV (RFC 4180): one row per variant,
 * the trial metric's columns, then the revenue columns once per currency
 * (`revenue_CUR` is net revenue, with gross and refunded beside it). Empty cells are the JSON's nulls.
 */
import type { Results } from './schema.ts';

function cell(value: string | number | null | undefined): string {
  // A figure that is not finite has no meaning: empty, like the JSON's null (the fold keeps every sum finite anyway).
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function resultsCsv(results: Results): string {
  const currencies = [...new Set(results.variants.flatMap((variant) => variant.revenue.map((revenue) => revenue.currency)))];
  const header = [
    'variant_id',
    'control',
    'exposed_users',
    'conversions',
    'conversion_rate',
    'conversion_rate_ci95_low',
    'conversion_rate_ci95_high',
    'uplift_relative',
    'uplift_ci95_low',
    'uplift_ci95_high',
    'p_value',
    'chance_to_beat_control',
    'p_value_adjusted',
    'chance_to_be_best',
    'mde_relative',
    'analysis',
    'trial_starts',
    'trial_conversions',
    'trial_started_rate',
    'trial_started_rate_ci95_low',
    'trial_started_rate_ci95_high',
    'trial_started_uplift_relative',
    'trial_started_uplift_ci95_low',
    'trial_started_uplift_ci95_high',
    'trial_started_p_value',
    'trial_started_p_value_adjusted',
    'trial_started_chance_to_beat_control',
    'trial_started_chance_to_be_best',
    'trial_started_mde_relative',
    ...currencies.flatMap((currency) =>
      [
        'revenue',
        'revenue_gross',
        'revenue_refunded',
        'revenue_per_exposed_user',
        'revenue_per_exposed_user_ci95_low',
        'revenue_per_exposed_user_ci95_high',
        'revenue_chance_to_beat_control',
        'revenue_uplift_relative',
        'revenue_uplift_ci95_low',
        'revenue_uplift_ci95_high',
        'revenue_p_value',
        'revenue_p_value_adjusted',
        'revenue_difference',
        'revenue_difference_ci95_low',
        'revenue_difference_ci95_high',
        'revenue_winsorized_at',
      ].map((name) => `${name}_${currency}`),
    ),
  ];
  const rows = results.variants.map((variant) => [
    variant.variant_id,
    variant.variant_id === results.control ? 'true' : 'false',
    variant.exposed_users,
    variant.conversions,
    variant.conversion_rate,
    variant.conversion_rate_ci95?.[0],
    variant.conversion_rate_ci95?.[1],
    variant.uplift?.relative,
    variant.uplift?.ci95[0],
    variant.uplift?.ci95[1],
    variant.p_value,
    variant.chance_to_beat_control,
    variant.uplift?.p_value_adjusted,
    variant.chance_to_be_best,
    variant.mde_relative,
    results.analysis,
    variant.trial_starts,
    variant.trial_conversions,
    variant.trial_started.rate,
    variant.trial_started.rate_ci95?.[0],
    variant.trial_started.rate_ci95?.[1],
    variant.trial_started.uplift?.relative,
    variant.trial_started.uplift?.ci95[0],
    variant.trial_started.uplift?.ci95[1],
    variant.trial_started.uplift?.p_value,
    variant.trial_started.uplift?.p_value_adjusted,
    variant.trial_started.chance_to_beat_control,
    variant.trial_started.chance_to_be_best,
    variant.trial_started.mde_relative,
    ...currencies.flatMap((currency) => {
      const revenue = variant.revenue.find((entry) => entry.currency === currency);
      return [
        revenue?.total,
        revenue?.gross,
        revenue?.refunded,
        revenue?.per_exposed_user,
        revenue?.per_exposed_user_ci95?.[0],
        revenue?.per_exposed_user_ci95?.[1],
        revenue?.chance_to_beat_control,
        revenue?.uplift?.relative,
        revenue?.uplift?.ci95[0],
        revenue?.uplift?.ci95[1],
        revenue?.uplift?.p_value,
        revenue?.uplift?.p_value_adjusted,
        revenue?.difference?.value,
        revenue?.difference?.ci95[0],
        revenue?.difference?.ci95[1],
        revenue?.winsorized_at,
      ];
    }),
  ]);
  return [header, ...rows].map((row) => `${row.map(cell).join(',')}\r\n`).join('');
}
