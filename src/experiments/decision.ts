/**
 * The decision readout on the primary metric (docs/reference/experiments.md,
 * "Decision"): the first rule that holds, in the order listed there, with one
 * plain sentence a product manager can act on.
 */
import type { Results } from './schema.ts';

type Decision = Results['decision'];

/** One comparison of the decision's family (a non-control, non-holdout variant) on the primary metric. */
interface Comparison {
  variant: string;
  /** m_v − m_c: its sign says which way the test points. */
  difference: number;
  /** m_v / m_c − 1 and its interval; null where the ratio or its interval is not (a control at 0). */
  relative: number | null;
  ci95: [number, number] | null;
  p_value_adjusted: number;
  /** Expected loss of shipping it and of keeping the control; null where the relative effect is. */
  loss: { ship: number; keep_control: number } | null;
  /** The guardrail it is significantly worse on, if any. */
  failedGuardrail: string | null;
}

interface DecisionInput {
  srmOk: boolean | null;
  enoughData: boolean;
  /** Revenue inference lacks payers (below min_payers_per_variant in an arm). */
  fewPayers: { minimum: number } | null;
  metric: string;
  control: string;
  /** One entry per variant of the family; null where the comparison cannot be computed. */
  comparisons: (Comparison | null)[];
  targetUplift: number;
  usersNeeded: number | null;
  /** Every arm has the planned users. */
  planReached: boolean;
  lossThreshold: number;
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

function metricName(metric: string): string {
  return metric === 'conversion'
    ? 'conversion'
    : metric === 'trial_started'
      ? 'trial starts'
      : `revenue per exposed user in ${metric.slice('revenue:'.length)}`;
}

const GUARDRAIL_NAMES: Record<string, string> = { conversion: 'conversion', refund_rate: 'refund rate', trial_cancellation_rate: 'trial cancellation rate' };

function effect(comparison: Comparison): string {
  if (comparison.relative === null || comparison.ci95 === null) return '';
  return ` by ${percent(comparison.relative)} (95 % interval ${percent(comparison.ci95[0])} to ${percent(comparison.ci95[1])})`;
}

export function decide(input: DecisionInput): Decision {
  const { comparisons, control, targetUplift } = input;
  const what = metricName(input.metric);
  // Readiness counts what the metric counts: a trial test may see its trials long before the purchases after them.
  const counted = input.metric === 'trial_started' ? 'trial starts' : 'conversions';
  const none = { variant: null, guardrail: null };
  if (input.srmOk === false) {
    return {
      status: 'srm_failed',
      ...none,
      reason: 'The users are not split as the weights say (sample ratio mismatch): fix the logging or the assignment before trusting any figure.',
    };
  }
  if (!input.enoughData) {
    const payers = input.fewPayers === null ? '' : `, and revenue ${input.fewPayers.minimum} payers in every variant`;
    return {
      status: 'not_enough_data',
      ...none,
      reason: `Too few users or ${counted} yet (each variant needs 100 exposed users and the segment 10 ${counted}${payers}): keep the experiment running.`,
    };
  }
  const known = comparisons.filter((comparison): comparison is Comparison => comparison !== null);
  const complete = comparisons.length > 0 && known.length === comparisons.length;
  const better = known.filter((comparison) => comparison.p_value_adjusted < 0.05 && comparison.difference > 0);
  const largest = (list: Comparison[]) => list.reduce((a, b) => ((b.relative ?? b.difference) > (a.relative ?? a.difference) ? b : a));
  const safe = better.filter((comparison) => comparison.failedGuardrail === null);
  if (safe.length > 0) {
    const best = largest(safe);
    return {
      status: 'winner',
      variant: best.variant,
      guardrail: null,
      reason: `Variant ${best.variant} beats the control on ${what}${effect(best)}: ship it.`,
    };
  }
  if (better.length > 0) {
    const best = largest(better);
    const guardrail = best.failedGuardrail!;
    return {
      status: 'guardrail_failed',
      variant: best.variant,
      guardrail,
      reason: `Variant ${best.variant} beats the control on ${what}${effect(best)} but is significantly worse on its ${GUARDRAIL_NAMES[guardrail] ?? guardrail} guardrail: do not ship it as is.`,
    };
  }
  if (complete && known.every((c) => c.p_value_adjusted < 0.05 && c.difference < 0)) {
    return { status: 'control_best', ...none, reason: `Every variant does worse than the control (${control}) on ${what}: keep the control.` };
  }
  if (complete && known.every((c) => c.ci95 !== null && c.ci95[0] >= -targetUplift && c.ci95[1] <= targetUplift)) {
    return {
      status: 'no_difference',
      ...none,
      reason: `No variant differs from the control on ${what} by ${percent(targetUplift)} or more: pick any on other grounds, or stop the test.`,
    };
  }
  const cheap = (c: Comparison) => c.loss !== null && c.loss.ship < input.lossThreshold && c.loss.keep_control < input.lossThreshold;
  if (complete && input.planReached && known.every(cheap)) {
    return {
      status: 'no_difference',
      ...none,
      reason: `The planned users are in and either choice costs less than ${percent(input.lossThreshold)} of ${what} in expectation: pick any on other grounds, or stop the test.`,
    };
  }
  const needed = input.usersNeeded === null ? '' : ` (about ${input.usersNeeded} exposed users per variant to detect ${percent(targetUplift)})`;
  return { status: 'keep_running', ...none, reason: `No conclusion yet on ${what}: keep the experiment running${needed}.` };
}
