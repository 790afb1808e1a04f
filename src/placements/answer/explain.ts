/**
 * GET /api/sdk/placement?…&explain=1 with a secret key: the answer, plus
 * why: the attributes the rules saw (the purchases.* facts among them when
 * a rule or the paywall tests them), each rule tried with each clause's
 * result, the holdout bucket and the opens counted against the cap. Off the
 * hot path: it serialises afresh.
 */
import { type Attributes, evalCondition, lookupPath } from '../../paywalls/targeting/condition.ts';
import { holdoutSeed } from '../holdout-seed.ts';
import type { Decision } from './answers.ts';

const LOGICAL = new Set(['$and', '$or', '$nor', '$not']);

function clauses(audience: Readonly<Record<string, unknown>>, attributes: Attributes) {
  return Object.entries(audience).map(([key, operand]) => ({
    clause: { [key]: operand },
    attribute: LOGICAL.has(key) ? null : key,
    value: LOGICAL.has(key) ? null : (lookupPath(attributes, key.split('.')) ?? null),
    result: evalCondition(attributes, { [key]: operand }),
  }));
}

function reasonOf(decision: Decision): string {
  const { rule, paywallId, reason, placement } = decision;
  const by = rule === undefined ? 'no rule matched' : `rule ${rule.index} matched`;
  switch (reason) {
    case undefined:
      return `${by}: paywall ${paywallId} is shown${rule === undefined ? ' (the default)' : ''}`;
    case 'no_rule_matched':
      return 'no rule matched and the placement has no default paywall';
    case 'paywall_not_live':
      return `${by}, but paywall ${paywallId} is not live`;
    case 'holdout':
      return `${by}; bucket ${decision.bucket} is below ${rule!.holdoutBuckets}: the user is in the holdout of placement ${placement.id}`;
    case 'frequency_cap':
      return `${by}; the user opened it ${decision.opens!.count} times this ${rule!.frequency!.per}, the cap is ${rule!.frequency!.limit}`;
  }
}

export function explainDecision(decision: Decision, userId: string | undefined): Record<string, unknown> {
  const { placement, attributes, rule } = decision;
  const decided = rule?.index ?? placement.rules.length;
  return {
    revision: placement.revision,
    attributes: { ...attributes },
    rules: placement.rules.map((candidate) => ({
      rule: candidate.index,
      paywall_id: candidate.paywallId,
      tried: candidate.index <= decided,
      matched: candidate.index === rule?.index,
      conditions: candidate.index <= decided && candidate.audience ? clauses(candidate.audience, attributes) : [],
    })),
    holdout:
      decision.bucket === undefined || userId === undefined
        ? null
        : { seed: holdoutSeed(placement.id), user_id: userId, bucket: decision.bucket, held_out_below: rule!.holdoutBuckets },
    frequency: decision.opens === undefined ? null : { ...rule!.frequency, since: new Date(decision.opens.since).toISOString(), opens: decision.opens.count },
    reason: reasonOf(decision),
  };
}
