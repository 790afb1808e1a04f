/**
 * Every experiment segment of every paywall, by project: the segment an
 * exposure or a purchase goes into, and the counts the ingestion limits on
 * audiences read (limits.ts).
 */
import { NO_CURRENCY, Segment } from './experiment-log.ts';

/** The segment key of the default split (audience ids are never empty). */
export const DEFAULT_SEGMENT = '';

/**
 * A placement's exposures are a segment too, under this prefix and the
 * placement id where a paywall id stands ('@' starts no paywall id): its
 * two arms are the users shown the paywall (a screen_impression naming the
 * placement) and those held out (a placement_holdout event, which the
 * typed client sends when the placement answers holdout).
 */
export const PLACEMENT_SEGMENT = '@placement:';
export const SHOWN = 'shown';
export const HELD_OUT = 'held_out';
const PLACEMENT_HOLDOUT = 'placement_holdout';

export class ExperimentLogs {
  /** project → paywall → audience ('' for the default split) → segment */
  private readonly segments = new Map<string, Map<string, Map<string, Segment>>>();
  /** Segments per project: what the ingestion limit on audiences counts. */
  private readonly perProject = new Map<string, number>();

  segment(projectId: string, paywallId: string, audience: string): Segment {
    let paywalls = this.segments.get(projectId);
    if (!paywalls) this.segments.set(projectId, (paywalls = new Map()));
    let audiences = paywalls.get(paywallId);
    if (!audiences) paywalls.set(paywallId, (audiences = new Map()));
    let segment = audiences.get(audience);
    if (!segment) {
      audiences.set(audience, (segment = new Segment()));
      this.perProject.set(projectId, (this.perProject.get(projectId) ?? 0) + 1);
    }
    return segment;
  }

  /** Every segment of a paywall (the default split and each audience that has entries). */
  segmentsOf(projectId: string, paywallId: string): Segment[] {
    return [...(this.segments.get(projectId)?.get(paywallId)?.values() ?? [])];
  }

  /** Segments of one paywall. */
  countOf(projectId: string, paywallId: string): number {
    return this.segments.get(projectId)?.get(paywallId)?.size ?? 0;
  }

  /** Segments of every paywall of a project. */
  countInProject(projectId: string): number {
    return this.perProject.get(projectId) ?? 0;
  }

  find(projectId: string, paywallId: string, audience: string): Segment | undefined {
    return this.segments.get(projectId)?.get(paywallId)?.get(audience);
  }

  /**
   * Records an event of a known user when it is an exposure (with a variant) or a purchase; false
   * when its segment has no code left for its variant or currency, and the entry is left out
   * (ingestion refuses such events before they are stored: only data stored by an older version meets this).
   */
  apply(
    projectId: string,
    paywallId: string,
    audience: string | null,
    type: string,
    ts: number,
    ordinal: number,
    variantId: string | null,
    revenue: number | null,
    currency: string | null,
  ): boolean {
    if (type === 'screen_impression') {
      if (variantId === null) return true;
      const segment = this.segment(projectId, paywallId, audience ?? DEFAULT_SEGMENT);
      const code = segment.code(segment.variants, variantId);
      if (code === -1) return false;
      segment.exposures.push(ordinal, ts, code, 0);
      segment.version++;
    } else if (type === 'purchase_complete') {
      const segment = this.segment(projectId, paywallId, audience ?? DEFAULT_SEGMENT);
      const code = revenue === null || currency === null ? NO_CURRENCY : segment.code(segment.currencies, currency);
      if (code === -1) return false;
      segment.addPurchase(ordinal, ts, code, revenue ?? 0);
      segment.version++;
    }
    return true;
  }

  /** Records a placement's exposure; which arm it is, undefined for an event that is none (false: its segment could not code it). */
  placementExposure(projectId: string, placement: string, type: string, ts: number, ordinal: number): typeof SHOWN | typeof HELD_OUT | undefined | false {
    const arm = type === 'screen_impression' ? SHOWN : type === PLACEMENT_HOLDOUT ? HELD_OUT : undefined;
    if (arm === undefined) return undefined;
    const segment = this.segment(projectId, PLACEMENT_SEGMENT + placement, DEFAULT_SEGMENT);
    const code = segment.code(segment.variants, arm);
    if (code === -1) return false;
    segment.exposures.push(ordinal, ts, code, 0);
    segment.version++;
    return arm;
  }

  /** Every segment of a project: what a placement's purchases come from (a purchase anywhere counts for the placement). */
  segmentsInProject(projectId: string): Segment[] {
    return [...(this.segments.get(projectId)?.values() ?? [])].flatMap((audiences) => [...audiences.values()]);
  }

  *entries(): IterableIterator<[projectId: string, paywallId: string, audience: string, segment: Segment]> {
    for (const [projectId, paywalls] of this.segments) {
      for (const [paywallId, audiences] of paywalls) {
        for (const [audience, segment] of audiences) yield [projectId, paywallId, audience, segment];
      }
    }
  }
}
