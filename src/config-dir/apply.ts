/**
 * Runs a plan's steps against its target, each write conditional on the ETag
 * the plan read (or create-only), so an edit made meanwhile in the dashboard
 * or by another apply is refused, not overwritten.
 */
import { type ConfigBackend, TargetError } from './backend.ts';
import { describeStep, type Plan } from './plan.ts';

export class ApplyError extends Error {}

/** Runs the steps in order; `done` is told about each one as it completes. */
export async function applyPlan(plan: Plan, backend: ConfigBackend, done: (line: string) => void): Promise<void> {
  const completed: string[] = [];
  try {
    await backend.atomically(async () => {
      // A paywall written by an earlier step is published at the revision that step made, under the tag it returned.
      const written = new Map<string, { revision: number; tag: string }>();
      for (const step of plan.steps) {
        switch (step.kind) {
          case 'create-product':
            await backend.putProduct(step.id, step.content, { create: true });
            break;
          case 'update-product':
            await backend.putProduct(step.id, step.content, { ifMatch: step.ifMatch });
            break;
          case 'create-paywall':
            written.set(step.id, await backend.putPaywall(step.id, step.document, { create: true }));
            break;
          case 'update-paywall':
            written.set(step.id, await backend.putPaywall(step.id, step.document, { ifMatch: step.ifMatch }));
            break;
          case 'publish': {
            const after = written.get(step.id);
            const revision = step.revision ?? after!.revision;
            await backend.publish(step.id, revision, after?.tag ?? step.ifMatch!);
            break;
          }
          case 'archive':
            await backend.archive(step.id, step.ifMatch);
            break;
          case 'delete-product':
            await backend.deleteProduct(step.id, step.ifMatch);
            break;
          case 'create-placement':
            await backend.putPlacement(step.id, step.document, { create: true });
            break;
          case 'update-placement':
            await backend.putPlacement(step.id, step.document, { ifMatch: step.ifMatch });
            break;
          case 'archive-placement':
            await backend.archivePlacement(step.id, step.ifMatch);
            break;
        }
        const line = describeStep(step);
        completed.push(line);
        if (!backend.transactional) done(line);
      }
    });
  } catch (error) {
    const failed = plan.steps[completed.length];
    const reason = error instanceof TargetError ? error.message : error instanceof Error ? error.message : String(error);
    const step = failed ? `${describeStep(failed)} failed: ` : '';
    const refused = error instanceof TargetError && error.code === 'precondition_failed';
    const why = refused ? `${step}it was changed on ${plan.target} after it was read (${reason}). Run plan again to see the change.` : `${step}${reason}`;
    const left = backend.transactional
      ? 'Nothing was changed.'
      : completed.length === 0
        ? 'Nothing was changed.'
        : `Done before the failure: ${completed.join(', ')}; nothing after it.`;
    throw new ApplyError(`${why} ${left}`);
  }
  if (backend.transactional) for (const line of completed) done(line);
}
