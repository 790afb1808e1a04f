/**
 * Experiment phases of a paywall. A phase starts when a revision goes live
 * whose split (variants, weights, holdouts, audiences and their conditions
 * and weights) differs from the split of the phase before, or when the
 * publish asks for a new phase; a text or style fix keeps the phase. An
 * event belongs to the phase whose [started_at, ended_at) holds its ts.
 * Archiving does not end a phase: publishing the same split again continues it.
 * A phase after the first gets a seed of its own unless the publish says
 * `reseed: false`, so that its users are randomized afresh: otherwise, after
 * 50/50 → 90/10, most of the new control's users would have had the
 * treatment in the phase before (carry-over).
 */
import type { PaywallOutput } from '../paywalls/document/schema.ts';

/** What defines the split of users into variants: the part of a document a phase is about. */
export interface PhaseDesign {
  /** `control` only when set, so that designs stored before it existed compare equal. */
  variants: { id: string; weight: number; holdout: boolean; control?: true }[];
  audiences: { id: string; when: Record<string, unknown>; weights: Record<string, number> }[];
}

export interface PhaseRow {
  number: number;
  revision: number;
  started_at: number;
  ended_at: number | null;
  design: string;
  /** Appended to the paywall's seed when users are hashed in this phase; null: none. */
  seed_suffix: string | null;
}

/** How a publish treats phases: `forceNew` starts one even with the same split; `reseed` (default true) gives a started phase its own seed. */
export interface PhaseOptions {
  forceNew: boolean;
  reseed: boolean;
}

/** The seed users are hashed with in a phase: the paywall's (the document's `seed`, else its id) and the phase's suffix. */
export function phaseSeed(baseSeed: string, row: Pick<PhaseRow, 'seed_suffix'> | undefined): string {
  return baseSeed + (row?.seed_suffix ?? '');
}

export function phaseDesign(doc: Pick<PaywallOutput, 'variants' | 'audiences'>): PhaseDesign {
  return {
    variants: doc.variants.map((variant) => ({
      id: variant.id,
      weight: variant.weight,
      holdout: variant.holdout === true,
      ...(variant.control === true ? { control: true as const } : {}),
    })),
    audiences: doc.audiences.map((audience) => ({ id: audience.id, when: audience.when, weights: audience.weights })),
  };
}

/** JSON with object keys sorted at every level, so that two designs compare by content, not key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Whether a revision of split `design` going live starts a phase (a publish
 * without `new_phase`): when no phase has started yet, or when its split
 * differs from the current phase's. What nextPhase decides, and what
 * GET /api/paywalls/{id}/revisions/{n} says beforehand.
 */
export function startsPhase(current: Pick<PhaseRow, 'design'> | undefined, design: PhaseDesign): boolean {
  return current === undefined || canonical(JSON.parse(current.design)) !== canonical(design);
}

/**
 * What a publish does to the phases, decided inside the publish's
 * transaction from the current phase: start phase n + 1 (ending phase n at
 * the same instant) when the split changed or `forceNew` is set, with a seed
 * suffix of its own unless `reseed` is false (then it keeps phase n's); else
 * phase n goes on. Every backend's PaywallStore.publish writes what this
 * says, ending the current phase when one started.
 */
export function nextPhase(
  current: PhaseRow | undefined,
  revision: number,
  design: PhaseDesign,
  options: PhaseOptions,
  now: number,
): { phase: PhaseRow; started: boolean } {
  if (current && !options.forceNew && !startsPhase(current, design)) return { phase: current, started: false };
  const text = canonical(design);
  const number = (current?.number ?? 0) + 1;
  // The first phase hashes with the paywall's seed as it is: publishing for the first time moves nobody.
  const suffix = current === undefined ? null : options.reseed ? `#${number}` : current.seed_suffix;
  return { phase: { number, revision, started_at: now, ended_at: null, design: text, seed_suffix: suffix }, started: true };
}

/** A phase as GET /api/paywalls/{id}/phases lists it: the default split's weights and each audience's, and the seed users are hashed with. */
export function phaseInfo(
  row: PhaseRow,
  baseSeed: string,
): {
  number: number;
  started_at: string;
  ended_at: string | null;
  revision: number;
  seed: string;
  weights: Record<string, number>;
  audiences: Record<string, Record<string, number>>;
} {
  const design = JSON.parse(row.design) as PhaseDesign;
  const weights: Record<string, number> = Object.create(null);
  for (const variant of design.variants) weights[variant.id] = variant.weight;
  const audiences: Record<string, Record<string, number>> = Object.create(null);
  for (const audience of design.audiences) audiences[audience.id] = audience.weights;
  return {
    number: row.number,
    started_at: new Date(row.started_at).toISOString(),
    ended_at: row.ended_at === null ? null : new Date(row.ended_at).toISOString(),
    revision: row.revision,
    seed: phaseSeed(baseSeed, row),
    weights,
    audiences,
  };
}
