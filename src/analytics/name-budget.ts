/**
 * Which new names an event may bring a project (docs/reference/events.md, "Names and
 * their limits"). The derived state keeps every event type, paywall id,
 * variant id and audience it meets for as long as it lives, so each costs
 * memory and is bounded (limits.ts). What must never be refused:
 * the documented event types, the project's paywall ids, and the variants
 * and audiences its live paywalls declare. What must not use up the team's
 * room: names no paywall declares, sent without a secret key (keyless or
 * with the public sdk key, which anyone can take from an app). Those count
 * in a budget of their own, bounded per day and remembered in
 * `event_public_names` (migration 19) so that restarts and other instances
 * see it; an owner can list and clear it (routes.ts, `paywalld
 * event-names`). Undeclared names sent with a secret key count against the
 * team's limits, less the public names.
 */

/** What the main thread knows of an event's names, one bit each, and whether it came without a secret key. */
export const MARK = { type: 1, paywall: 2, variant: 4, audience: 8, public: 16, placement: 32 } as const;

/** A name's kind as the limits and the table write it: event type, paywall id, variant id, audience. */
export type NameKind = 't' | 'p' | 'v' | 'a';

/** Public names count in the budget for this long after they first came, unless cleared before. */
export const PUBLIC_WINDOW_MS = 24 * 60 * 60 * 1000;

/** New public names a project may take within the window, by counter: per project, or per paywall (`paywall`). */
const PUBLIC_BUDGET: Record<NameKind, { project: number; paywall?: number }> = {
  t: { project: 100 },
  p: { project: 100 },
  v: { project: 1000, paywall: 100 },
  a: { project: 1000, paywall: 100 },
};

/** A stored public name, as the writer inserts it. */
export interface PublicName {
  projectId: string;
  kind: NameKind;
  /** The paywall of a variant or audience, '' otherwise. */
  scope: string;
  name: string;
}

/** What a project's stored public names count, by the counters of limits.ts: every one, and those counting in the budget now. */
export interface ProjectNames {
  all: ReadonlyMap<string, number>;
  recent: ReadonlyMap<string, number>;
}

/** Where admission finds a project's public names; undefined when they are not loaded (PostgreSQL's admission ahead of its lock). */
export interface PublicNames {
  of(projectId: string): ProjectNames | undefined;
}

/** The counters (limits.ts) a name of `kind` counts in. */
export function countersOf(projectId: string, kind: NameKind, scope: string): string[] {
  return kind === 'v' || kind === 'a' ? [`${kind}\0${projectId}\0${scope}`, `${kind}\0${projectId}`] : [`${kind}\0${projectId}`];
}

/** The budget of a kind's names per project, or per paywall (variants and audiences). */
export function budgetLimit(kind: NameKind, perPaywall: boolean): number {
  const budget = PUBLIC_BUDGET[kind];
  return perPaywall ? budget.paywall! : budget.project;
}

/** The budget of a counter: per paywall when it names one. */
export function budgetOf(kind: NameKind, counter: string): number {
  return budgetLimit(kind, counter.split('\0').length === 3);
}

/** A project's names from grouped rows of event_public_names (kind, scope, how many, how many count now). */
export function projectNames(projectId: string, rows: readonly { kind: string; scope: string; every: number; recent: number }[]): ProjectNames {
  const all = new Map<string, number>();
  const recent = new Map<string, number>();
  for (const row of rows) {
    for (const counter of countersOf(projectId, row.kind as NameKind, row.scope)) {
      all.set(counter, (all.get(counter) ?? 0) + Number(row.every));
      recent.set(counter, (recent.get(counter) ?? 0) + Number(row.recent));
    }
  }
  return { all, recent };
}
