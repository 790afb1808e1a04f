/**
 * A plan saved by `plan --out FILE` and applied by `apply --plan FILE`: what
 * was reviewed is what is applied. It records the ETag of everything the
 * target held and a digest of the steps; apply refuses, changing nothing,
 * when either differs from a fresh plan.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import * as v from 'valibot';
import { canonicalJson } from './diff.ts';
import type { Plan, PlanOptions } from './plan.ts';

const FORMAT = 'paywalld-plan/1';

const SavedPlanSchema = v.object({
  format: v.literal(FORMAT),
  target: v.string(),
  /** Where the target is (never its key), so that applying the plan needs no target flags; absent in plans of earlier versions. */
  source: v.optional(v.object({ server: v.optional(v.string()), db: v.optional(v.string()), project: v.optional(v.string()) })),
  options: v.object({ publish: v.boolean(), prune: v.boolean() }),
  base: v.record(v.string(), v.string()),
  steps: v.string(),
});
type SavedPlan = v.InferOutput<typeof SavedPlanSchema>;

function digest(plan: Plan): string {
  return createHash('sha256').update(canonicalJson(plan.steps)).digest('hex');
}

export function writePlan(file: string, plan: Plan, options: PlanOptions, source: SavedPlan['source']): void {
  const saved: SavedPlan = { format: FORMAT, target: plan.target, source, options, base: plan.base, steps: digest(plan) };
  fs.writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`);
}

export function readPlan(file: string): SavedPlan {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the plan ${file}: ${(error as Error).message}`);
  }
  const parsed = v.safeParse(SavedPlanSchema, value);
  if (!parsed.success) throw new Error(`${file} is not a plan written by paywalld plan --out`);
  return parsed.output;
}

/** Why a fresh plan is not the saved one: what changed on the target, or in the directory; undefined when they agree. */
export function planDrift(saved: SavedPlan, fresh: Plan): string | undefined {
  if (saved.target !== fresh.target) return `the plan was made for ${saved.target}, not ${fresh.target}`;
  const changed: string[] = [];
  for (const name of new Set([...Object.keys(saved.base), ...Object.keys(fresh.base)])) {
    const [kind, id] = name.split(':') as [string, string];
    const then = saved.base[name];
    const now = fresh.base[name];
    if (then === now) continue;
    if (then === undefined) changed.push(`${kind} ${id} was created`);
    else if (now === undefined) changed.push(`${kind} ${id} was deleted`);
    else changed.push(`${kind} ${id} was changed (ETag ${then} then, ${now} now)`);
  }
  if (changed.length > 0) return `${fresh.target} changed since the plan was made: ${changed.join(', ')}`;
  if (saved.steps !== digest(fresh)) return 'the directory changed since the plan was made';
  return undefined;
}
