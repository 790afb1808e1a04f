/**
 * Whether publishing a revision starts a new experiment phase, asked before
 * a publish or a rollback: a new phase empties the results and randomizes
 * users afresh, which nobody should find out afterwards. The server says so
 * (the revision's `starts_phase`, by the rule its publish applies: any
 * change of variants, weights, holdouts, control or audiences); the phases
 * list says which phase would end.
 */
import type { PhaseList } from '../../../experiments/schema.ts';
import type { RevisionDetail } from '../../../paywalls/schema.ts';
import { call, enc } from '../api.ts';

/** What publishing a revision does to the experiment: starts phase `next` (ending `current`), keeps phase `current`, or starts the first (no note). */
export type PhaseEffect = { starts: true; current: number } | { starts: false; current: number } | null;

export async function phaseEffect(secret: string, id: string, revision: number): Promise<PhaseEffect> {
  const [phases, stored] = await Promise.all([
    call<PhaseList>(secret, 'GET', `/api/paywalls/${enc(id)}/phases`),
    call<RevisionDetail>(secret, 'GET', `/api/paywalls/${enc(id)}/revisions/${revision}`),
  ]);
  const current = phases.body.phases.at(-1);
  if (!current) return null;
  return { starts: stored.body.starts_phase, current: current.number };
}

/** The sentence the publish question shows for `effect`. */
export function phaseSentence(revision: number, effect: NonNullable<PhaseEffect>): string {
  if (!effect.starts) return `Revision ${revision} keeps the split: experiment phase ${effect.current} goes on, and its results with it.`;
  return (
    `Revision ${revision} changes the split (variants, weights, holdouts, control or audiences): publishing it ends experiment phase ${effect.current} ` +
    `and starts phase ${effect.current + 1}. Its results start empty, users are randomized afresh, and events timed before the ` +
    `publish stay in phase ${effect.current}.`
  );
}
