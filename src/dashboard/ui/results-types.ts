/** GET /api/paywalls/{id}/phases and /results, as docs/experiments.md defines them. */
export interface Phase {
  number: number;
  started_at: string;
  ended_at: string | null;
  revision: number;
  seed: string;
  weights: Record<string, number>;
  audiences: Record<string, Record<string, number>>;
}

export interface Uplift {
  relative: number;
  ci95: [number, number];
  p_value: number;
  p_value_adjusted: number;
}

export interface Revenue {
  currency: string;
  total: number;
  per_exposed_user: number | null;
  per_exposed_user_ci95: [number, number] | null;
  chance_to_beat_control: number | null;
  uplift: Uplift | null;
  difference: { value: number; ci95: [number, number] } | null;
  winsorized_at: number | null;
}

export interface VariantResult {
  variant_id: string;
  exposed_users: number;
  conversions: number;
  conversion_rate: number | null;
  conversion_rate_ci95: [number, number] | null;
  uplift: Uplift | null;
  p_value: number | null;
  chance_to_beat_control: number | null;
  chance_to_be_best: number | null;
  mde_relative: number | null;
  revenue: Revenue[];
}

export type DecisionStatus = 'srm_failed' | 'not_enough_data' | 'winner' | 'control_best' | 'no_difference' | 'keep_running';

export interface Results {
  paywall_id: string;
  audience: string | null;
  phase: Omit<Phase, 'audiences' | 'seed'>;
  control: string;
  analysis: 'sequential' | 'fixed';
  primary_metric: string;
  decision: { status: DecisionStatus; variant: string | null; reason: string };
  power: { target_uplift: number; users_needed_per_variant: number | null };
  conversion_window_hours: number | null;
  enough_data: boolean;
  multiple_exposure_users: number;
  srm: { p_value: number | null; ok: boolean | null; observed: Record<string, number>; expected: Record<string, number> };
  variants: VariantResult[];
  days: { day: string; variants: Record<string, { exposed_users: number; conversions: number }> }[];
}

export const percent = (value: number | null, digits = 1) => (value === null ? '—' : `${(value * 100).toFixed(digits)} %`);
export const signed = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
export const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
