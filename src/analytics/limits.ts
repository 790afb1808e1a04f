/**
 * The ingestion limits on what the derived state keeps per name: event
 * types, paywall ids, variant ids and audiences each cost memory and
 * checkpoint rows for as long as the state lives, and a segment's variant
 * codes are 16-bit. Each limit is far above what a real app sends and far
 * below what the state can represent, and is checked by the writer thread
 * inside the transaction, before an event is stored: an event that would
 * take a project past one is refused by index with the limit's code, and
 * the state never meets a name it cannot keep after a commit.
 */

import { UNKNOWN_VARIANT } from '../events/variants.ts';
import type { DerivedEvent } from './derived-event.ts';
import { DEFAULT_SEGMENT, PLACEMENT_SEGMENT } from './fold/segments.ts';
import { budgetOf, countersOf, MARK, type NameKind, type PublicName, type PublicNames } from './name-budget.ts';
import type { DerivedState } from './state.ts';

const MAX_EVENT_TYPES_PER_PROJECT = 1000;
const MAX_PAYWALLS_PER_PROJECT = 1000;
const MAX_VARIANTS_PER_PAYWALL = 1000;
/** (paywall, variant) pairs of one project. */
const MAX_VARIANTS_PER_PROJECT = 20_000;
/** Experiment segments (the default split and each audience) of one paywall. */
const MAX_AUDIENCES_PER_PAYWALL = 1000;
/** (paywall, audience) pairs of one project. */
const MAX_AUDIENCES_PER_PROJECT = 10_000;

export type LimitCode = 'too_many_event_types' | 'too_many_paywalls' | 'too_many_variants' | 'too_many_audiences';

/** A limit an event would pass, and whose: the team's, or the budget of names sent without a secret key. */
export interface Refusal {
  code: LimitCode;
  budget: 'team' | 'public';
}

/** Admission cannot decide without the project's public names, which are not loaded (PostgreSQL, ahead of its lock). */
export const UNLOADED = 'unloaded';

/** A refusal as the writer answers it (protocol.ts, Written.refused). */
export function refusedRow(index: number, refusal: Refusal): [number, LimitCode] | [number, LimitCode, 'public'] {
  return refusal.budget === 'public' ? [index, refusal.code, 'public'] : [index, refusal.code];
}

export const PUBLIC_LIMIT_MESSAGES: Record<LimitCode, string> = {
  too_many_event_types:
    'the project took as many new event types without a secret key as it may in a day; send them with a secret key, or have an owner clear them (GET /api/event-names)',
  too_many_paywalls:
    'the project took as many new paywall ids without a secret key as it may in a day; create the paywall, or have an owner clear them (GET /api/event-names)',
  too_many_variants:
    'the paywall took as many variant ids it does not declare without a secret key as it may in a day; publish a revision that declares it, or have an owner clear them (GET /api/event-names)',
  too_many_audiences:
    'the paywall took as many audiences it does not declare without a secret key as it may in a day; publish a revision that declares it, or have an owner clear them (GET /api/event-names)',
};

export const LIMIT_MESSAGES: Record<LimitCode, string> = {
  too_many_event_types: `the project has stored ${MAX_EVENT_TYPES_PER_PROJECT} distinct event types; an event of a new type is refused`,
  too_many_paywalls: `the project has stored events of ${MAX_PAYWALLS_PER_PROJECT} distinct paywall ids; an event of a new one is refused`,
  too_many_variants: `the paywall has ${MAX_VARIANTS_PER_PAYWALL} distinct variant ids (or the project ${MAX_VARIANTS_PER_PROJECT}); an event of a new one is refused`,
  too_many_audiences: `the paywall has ${MAX_AUDIENCES_PER_PAYWALL} distinct audiences (or the project ${MAX_AUDIENCES_PER_PROJECT}, placements counted); an event of a new one is refused`,
};

/** The events that expose a user to a placement (segments.ts, placementExposure). */
const PLACEMENT_EXPOSURES: ReadonlySet<string> = new Set(['screen_impression', 'placement_holdout']);

/** Whether the event opens an experiment segment (DerivedState.apply): only those count against the audience limits. */
function entersSegment(type: string, userId: string | null, variantId: string | null): boolean {
  return userId !== null && ((type === 'screen_impression' && variantId !== null) || type === 'purchase_complete');
}

const TEAM_LIMITS: Record<NameKind, { project: number; paywall?: number }> = {
  t: { project: MAX_EVENT_TYPES_PER_PROJECT },
  p: { project: MAX_PAYWALLS_PER_PROJECT },
  v: { project: MAX_VARIANTS_PER_PROJECT, paywall: MAX_VARIANTS_PER_PAYWALL },
  a: { project: MAX_AUDIENCES_PER_PROJECT, paywall: MAX_AUDIENCES_PER_PAYWALL },
};

const CODES: Record<NameKind, LimitCode> = { t: 'too_many_event_types', p: 'too_many_paywalls', v: 'too_many_variants', a: 'too_many_audiences' };

interface NewName extends PublicName {
  /** A documented type, a paywall of the project, what its live revision declares, no variant or the default segment. */
  declared: boolean;
}

function added(fresh: NewName[] | undefined, name: NewName): NewName[] {
  (fresh ??= []).push(name);
  return fresh;
}

/**
 * Checks the events of one transaction against the limits. The state counts
 * the events committed before; the names of the events admitted in this
 * transaction (not yet counted: the state is updated after the commit) are
 * reserved here until `clear`, and so are the public names among them
 * (`publicNames`, which the sink stores in the same transaction).
 */
export class Admission {
  /** Names admitted in this transaction. */
  private readonly names = new Set<string>();
  /** By counter: names reserved in this transaction, and the public ones among them. */
  private readonly counts = new Map<string, number>();
  private readonly publicCounts = new Map<string, number>();
  private readonly reservedPublic: PublicName[] = [];

  constructor(
    private readonly state: DerivedState,
    private readonly stored: PublicNames,
  ) {}

  /**
   * Undefined when the event may be stored (its new names are then
   * reserved), else the limit it would pass; UNLOADED when that needs the
   * project's public names and they are not loaded. `mark` is what the
   * main thread knows of its names (analytics/name-budget.ts, MARK; 0: a secret key,
   * nothing declared).
   */
  admit(event: DerivedEvent, mark = 0): Refusal | typeof UNLOADED | undefined {
    const { projectId, paywallId, type, userId, variantId } = event;
    const variant = variantId ?? UNKNOWN_VARIANT;
    const state = this.state;
    // Allocated only for an event with a name the state does not know yet: the common event allocates nothing.
    let fresh: NewName[] | undefined;
    if (!state.typesOf(projectId)?.has(type)) fresh = added(fresh, { projectId, kind: 't', scope: '', name: type, declared: (mark & MARK.type) !== 0 });
    const variants = state.paywallsOf(projectId)?.get(paywallId);
    if (variants === undefined) fresh = added(fresh, { projectId, kind: 'p', scope: '', name: paywallId, declared: (mark & MARK.paywall) !== 0 });
    if (!variants?.has(variant)) {
      fresh = added(fresh, { projectId, kind: 'v', scope: paywallId, name: variant, declared: (mark & MARK.variant) !== 0 || variant === UNKNOWN_VARIANT });
    }
    const audience = event.audience ?? DEFAULT_SEGMENT;
    if (entersSegment(type, userId, variantId) && !state.experiments.find(projectId, paywallId, audience)) {
      fresh = added(fresh, { projectId, kind: 'a', scope: paywallId, name: audience, declared: (mark & MARK.audience) !== 0 || audience === DEFAULT_SEGMENT });
    }
    // A placement's results are a segment of the project too: a name an app makes up costs what an audience does.
    const placement = event.placement === null ? undefined : PLACEMENT_SEGMENT + event.placement;
    if (placement !== undefined && userId !== null && PLACEMENT_EXPOSURES.has(type) && !state.experiments.find(projectId, placement, DEFAULT_SEGMENT)) {
      fresh = added(fresh, { projectId, kind: 'a', scope: placement, name: DEFAULT_SEGMENT, declared: (mark & MARK.placement) !== 0 });
    }
    if (fresh === undefined) return undefined;
    const unreserved = fresh.filter((name) => !this.names.has(this.key(name)));
    for (const name of unreserved) {
      if (name.declared) continue;
      const refusal = this.check(name, (mark & MARK.public) !== 0);
      if (refusal !== undefined) return refusal;
    }
    for (const name of unreserved) {
      this.names.add(this.key(name));
      const isPublic = !name.declared && (mark & MARK.public) !== 0;
      if (isPublic) this.reservedPublic.push({ projectId, kind: name.kind, scope: name.scope, name: name.name });
      for (const counter of countersOf(projectId, name.kind, name.scope)) {
        this.counts.set(counter, (this.counts.get(counter) ?? 0) + 1);
        if (isPublic) this.publicCounts.set(counter, (this.publicCounts.get(counter) ?? 0) + 1);
      }
    }
    return undefined;
  }

  /** Whether an undeclared name would pass its budget: the public one (sent without a secret key), else the team's (every name stored, less the public ones). */
  private check(name: NewName, isPublic: boolean): Refusal | typeof UNLOADED | undefined {
    const stored = this.stored.of(name.projectId);
    if (stored === undefined) return UNLOADED;
    for (const counter of countersOf(name.projectId, name.kind, name.scope)) {
      const reservedPublic = this.publicCounts.get(counter) ?? 0;
      if (isPublic) {
        if ((stored.recent.get(counter) ?? 0) + reservedPublic >= budgetOf(name.kind, counter)) return { code: CODES[name.kind], budget: 'public' };
        continue;
      }
      const team = this.stateCount(name.kind, counter) + (this.counts.get(counter) ?? 0) - (stored.all.get(counter) ?? 0) - reservedPublic;
      const limit = TEAM_LIMITS[name.kind];
      if (team >= (counter.split('\0').length === 3 ? limit.paywall! : limit.project)) return { code: CODES[name.kind], budget: 'team' };
    }
    return undefined;
  }

  /** What the state counts of a counter (limits.ts's: types, paywalls, variants and segments, per project or paywall). */
  private stateCount(kind: NameKind, counter: string): number {
    const [, projectId, paywallId] = counter.split('\0') as [string, string, string | undefined];
    const state = this.state;
    if (kind === 't') return state.typesOf(projectId)?.size ?? 0;
    if (kind === 'p') return state.paywallsOf(projectId)?.size ?? 0;
    if (kind === 'v') return paywallId === undefined ? state.variantPairsOf(projectId) : (state.paywallsOf(projectId)?.get(paywallId)?.size ?? 0);
    return paywallId === undefined ? state.experiments.countInProject(projectId) : state.experiments.countOf(projectId, paywallId);
  }

  private key(name: PublicName): string {
    return `${name.kind}\0${name.projectId}\0${name.scope}\0${name.name}`;
  }

  /** Whether an event admitted since the last `clear` brought a name the state did not count. */
  get reservedNames(): boolean {
    return this.names.size > 0;
  }

  /** The public names admitted since the last `clear`: to store in the same transaction. */
  get publicNames(): readonly PublicName[] {
    return this.reservedPublic;
  }

  /** After the transaction: its events are counted by the state (committed) or gone (rolled back). */
  clear(): void {
    this.names.clear();
    this.counts.clear();
    this.publicCounts.clear();
    this.reservedPublic.length = 0;
  }
}
