/**
 * Whether publishing a revision starts a new experiment phase, asked before
 * a publish or a rollback: a new phase empties the results and randomizes
 * users afresh, which nobody should find out afterwards. The server decides
 * (and its answer says so); this compares what the phases list shows (the
 * weights of the default split and of each audience) to warn beforehand.
 */
import type { PhaseList } from '../../../experiments/schema.ts';
import type { RevisionDetail } from '../../../paywalls/schema.ts';
import { call, enc } from '../api.ts';

/** JSON with keys sorted at every level: two splits compare by content. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The sentence to confirm before publishing `revision`, or null when it keeps the current phase (or is the first publish). */
export async function phaseStartWarning(secret: string, id: string, revision: number): Promise<string | null> {
  const [phases, stored] = await Promise.all([
    call<PhaseList>(secret, 'GET', `/api/paywalls/${enc(id)}/phases`),
    call<RevisionDetail>(secret, 'GET', `/api/paywalls/${enc(id)}/revisions/${revision}`),
  ]);
  const current = phases.body.phases.at(-1);
  if (!current) return null;
  const document = stored.body.document;
  const weights = Object.fromEntries((document.variants ?? []).map((variant) => [variant.id, variant.weight]));
  const audiences = Object.fromEntries((document.audiences ?? []).map((audience) => [audience.id, audience.weights]));
  if (canonical(weights) === canonical(current.weights) && canonical(audiences) === canonical(current.audiences)) return null;
  return (
    `Revision ${revision} changes the split (variants, weights or audiences): publishing it ends experiment phase ${current.number} ` +
    `and starts phase ${current.number + 1}. Its results start empty, users are randomized afresh, and events timed before the ` +
    `publish stay in phase ${current.number}.`
  );
}
