/**
 * The decision readout on the primary metric (docs/experiments.md,
 * "Decision"): the first rule that holds, in the order listed there, with one
 * plain sentence a product manager can act on.
 */
import type { Results } from './schema.ts';

type Decision = Results['decision'];

/** One non-control variant's comparison on the primary metric. */
interface Comparison {
  variant: string;
  relative: number;
  ci95: [number, number];
  p_value_adjusted: number;
}

interface DecisionInput {
  srmOk: boolean | null;
  enoughData: boolean;
  metric: string;
  control: string;
  /** One entry per non-control variant; null where the comparison cannot be computed. */
  comparisons: (Comparison | null)[];
  targetUplift: number;
  usersNeeded: number | null;
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

export function decide(input: DecisionInput): Decision {
  const { comparisons, control, metric, targetUplift } = input;
  const what =
    metric === 'conversion' ? 'conversion' : metric === 'trial_started' ? 'trial starts' : `revenue per exposed user in ${metric.slice('revenue:'.length)}`;
  // Readiness counts what the metric counts: a trial test may see its trials long before the purchases after them.
  const counted = metric === 'trial_started' ? 'trial starts' : 'conversions';
  if (input.srmOk === false) {
    return {
      status: 'srm_failed',
      variant: null,
      reason: 'The users are not split as the weights say (sample ratio mismatch): fix the logging or the assignment before trusting any figure.',
    };
  }
  if (!input.enoughData) {
    return {
      status: 'not_enough_data',
      variant: null,
      reason: `Too few users or ${counted} yet (each variant needs 100 exposed users and the segment 10 ${counted}): keep the experiment running.`,
    };
  }
  const known = comparisons.filter((comparison): comparison is Comparison => comparison !== null);
  const winners = known.filter((comparison) => comparison.p_value_adjusted < 0.05 && comparison.relative > 0);
  if (winners.length > 0) {
    const best = winners.reduce((a, b) => (b.relative > a.relative ? b : a));
    return {
      status: 'winner',
      variant: best.variant,
      reason: `Variant ${best.variant} beats the control on ${what} by ${percent(best.relative)} (95 % interval ${percent(best.ci95[0])} to ${percent(best.ci95[1])}): ship it.`,
    };
  }
  if (comparisons.length > 0 && known.length === comparisons.length && known.every((c) => c.p_value_adjusted < 0.05 && c.relative < 0)) {
    return { status: 'control_best', variant: null, reason: `Every variant does worse than the control (${control}) on ${what}: keep the control.` };
  }
  if (comparisons.length > 0 && known.length === comparisons.length && known.every((c) => c.ci95[0] >= -targetUplift && c.ci95[1] <= targetUplift)) {
    return {
      status: 'no_difference',
      variant: null,
      reason: `No variant differs from the control on ${what} by ${percent(targetUplift)} or more: pick any on other grounds, or stop the test.`,
    };
  }
  const needed = input.usersNeeded === null ? '' : ` (about ${input.usersNeeded} exposed users per variant to detect ${percent(targetUplift)})`;
  return { status: 'keep_running', variant: null, reason: `No conclusion yet on ${what}: keep the experiment running${needed}.` };
}
