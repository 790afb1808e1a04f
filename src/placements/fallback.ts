/**
 * Placements in the offline fallback bundle (docs/guide/placements.md,
 * "Offline"): each rule as an app decides it without the server, marked
 * server_only when its audience tests purchases.*, rendered once per
 * compiled placement with a content hash (the bundle's ETag is made of
 * them).
 */
import { createHash } from 'node:crypto';
import type { FallbackPlacementPart, FallbackPlacements } from '../paywalls/fallback/placements.ts';
import type { FallbackPlacement } from '../paywalls/fallback/schema.ts';
import { usesServerAttributes } from '../paywalls/targeting/server-attributes.ts';
import type { CompiledPlacement } from './compiled.ts';
import type { LivePlacements } from './live.ts';

/** A served placement's entry of the bundle. */
export function fallbackPlacement(placement: CompiledPlacement): FallbackPlacement {
  return {
    placement: placement.id,
    revision: placement.revision,
    rules: placement.rules.map((rule) => ({
      paywall_id: rule.paywallId,
      audience: rule.audience === undefined ? null : { ...rule.audience },
      server_only: rule.audience !== undefined && usesServerAttributes(rule.audience),
      holdout_percent: rule.holdoutBuckets / 100,
      frequency: rule.frequency,
    })),
    default: placement.defaultPaywall,
  };
}

export class PlacementFallbacks implements FallbackPlacements {
  private readonly rendered = new WeakMap<CompiledPlacement, FallbackPlacementPart>();

  constructor(private readonly live: LivePlacements) {}

  parts(projectId: string, placementIds: readonly string[]): FallbackPlacementPart[] {
    const parts: FallbackPlacementPart[] = [];
    for (const id of placementIds) {
      const placement = this.live.get(projectId, id);
      if (!placement) continue;
      let part = this.rendered.get(placement);
      if (!part) {
        const json = JSON.stringify(fallbackPlacement(placement));
        const paywallIds = [...placement.rules.map((rule) => rule.paywallId), ...(placement.defaultPaywall === null ? [] : [placement.defaultPaywall])];
        part = { json, hash: createHash('sha256').update(json).digest('base64url'), paywallIds: [...new Set(paywallIds)] };
        this.rendered.set(placement, part);
      }
      parts.push(part);
    }
    return parts;
  }
}
