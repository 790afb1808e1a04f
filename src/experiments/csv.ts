/**
 * The variants table of the results as CSV (RFC 4180): one row per variant,
 * the revenue columns once per currency. Empty cells are the JSON's nulls.
 */
import type { Results } from './schema.ts';

function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
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
    ...currencies.flatMap((currency) =>
      ['revenue', 'revenue_per_exposed_user', 'revenue_per_exposed_user_ci95_low', 'revenue_per_exposed_user_ci95_high', 'revenue_chance_to_beat_control'].map(
        (name) => `${name}_${currency}`,
      ),
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
    ...currencies.flatMap((currency) => {
      const revenue = variant.revenue.find((entry) => entry.currency === currency);
      return [
        revenue?.total,
        revenue?.per_exposed_user,
        revenue?.per_exposed_user_ci95?.[0],
        revenue?.per_exposed_user_ci95?.[1],
        revenue?.chance_to_beat_control,
      ];
    }),
  ]);
  return [header, ...rows].map((row) => `${row.map(cell).join(',')}\r\n`).join('');
}
