/**
 * GET /api/sdk/placement's decision (docs/guide/placements.md): the first rule
 * whose audience matches decides (none: the default paywall, or nothing);
 * its paywall must be live; a user in the rule's holdout, or past its
 * frequency cap, is shown nothing; else the paywall as GET /api/sdk/config
 * resolves it for this request. Synchronous and from memory: the compiled
 * placements and paywalls, the purchases.* facts, the opens counted.
 */
import type { CompiledPaywall } from '../../paywalls/resolve/compiled.ts';
import type { RequestAttributes } from '../../paywalls/resolve/request.ts';
import { type UserFacts, withServerFacts } from '../../paywalls/resolve/server-facts.ts';
import type { Attributes } from '../../paywalls/targeting/condition.ts';
import { DomainError } from '../../shared/errors.ts';
import type { CompiledPlacement, CompiledRule, ServedAnswer } from '../compiled.ts';
import { windowStart } from '../frequency-window.ts';
import type { LivePlacements } from '../live.ts';
import type { NoShowReason } from '../schema.ts';

/** Who asks for which placement: /api/sdk/config's attributes, with the placement where it has the paywall. */
export interface PlacementRequest extends RequestAttributes {
  placementId: string;
}

interface LivePaywalls {
  get(projectId: string, paywallId: string): CompiledPaywall | undefined;
}

interface OpenCounts {
  count(projectId: string, placementId: string, userId: string, since: number): number;
}

/** How a request was decided: what the answer and its explanation are made of. */
export interface Decision {
  placement: CompiledPlacement;
  attributes: Attributes;
  rule: CompiledRule | undefined;
  paywallId: string | null;
  /** Why nothing is shown; undefined when the paywall is. */
  reason: NoShowReason | undefined;
  paywall: CompiledPaywall | undefined;
  /** The user's holdout bucket, when the rule has a holdout and the request a userId. */
  bucket: number | undefined;
  /** The user's opens counted against the rule's cap since `since`, when the server counts them. */
  opens: { since: number; count: number } | undefined;
}

export class PlacementAnswers {
  constructor(
    private readonly placements: LivePlacements,
    private readonly paywalls: LivePaywalls,
    private readonly facts: UserFacts,
    private readonly opens: OpenCounts,
  ) {}

  decide(projectId: string, request: PlacementRequest, now = Date.now()): Decision {
    const placement = this.placements.get(projectId, request.placementId);
    if (!placement) throw new DomainError('placement_not_found', 'no placement with this id in the project (or it is archived)');
    let attributes = placement.usesFacts ? withServerFacts(request, projectId, this.facts, `placement ${placement.id}`) : request.attributes;
    const rule = placement.decide(attributes);
    const paywallId = rule?.paywallId ?? placement.defaultPaywall;
    const decision: Decision = { placement, attributes, rule, paywallId, reason: undefined, paywall: undefined, bucket: undefined, opens: undefined };
    const paywall = paywallId === null ? undefined : this.paywalls.get(projectId, paywallId);
    if (!paywall) {
      decision.reason = paywallId === null ? 'no_rule_matched' : 'paywall_not_live';
      return decision;
    }
    const { userId } = request;
    if (rule && userId !== undefined) {
      if (rule.holdoutBuckets > 0) {
        decision.bucket = placement.bucket(userId);
        if (decision.bucket < rule.holdoutBuckets) decision.reason = 'holdout';
      }
      const since = decision.reason === undefined && rule.frequency ? windowStart(rule.frequency.per, now) : undefined;
      if (since !== undefined) {
        decision.opens = { since, count: this.opens.count(projectId, placement.id, userId, since) };
        if (decision.opens.count >= rule.frequency!.limit) decision.reason = 'frequency_cap';
      }
      if (decision.reason !== undefined) return decision;
    }
    // The paywall's own audiences may test purchases.* where the placement's rules did not.
    if (paywall.usesFacts && !placement.usesFacts) attributes = withServerFacts(request, projectId, this.facts, `paywall ${paywallId}`);
    decision.attributes = attributes;
    decision.paywall = paywall;
    return decision;
  }

  /** The answer, from memory: the placement's bodies and the paywall's, each serialised once. */
  answer(projectId: string, request: PlacementRequest): ServedAnswer {
    return this.serve(this.decide(projectId, request), request);
  }

  /** The answer of a decision. */
  serve({ placement, attributes, rule, paywallId, reason, paywall }: Decision, request: PlacementRequest): ServedAnswer {
    if (reason !== undefined || !paywall) return placement.noShow(reason!, rule, paywallId);
    const served = paywall.serve(paywall.choose(request.userId, attributes), request.locales, request.platform);
    return placement.show(rule, served);
  }
}
