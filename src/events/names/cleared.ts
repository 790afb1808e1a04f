import type { ChangeEntry } from '../../shared/change.ts';

/** The audit entry of an owner clearing the budget of names sent without a secret key. */
export function namesCleared(projectId: string, cleared: number): ChangeEntry {
  return {
    project: projectId,
    action: 'event_names.cleared',
    target: { type: 'project', id: projectId },
    summary: `${cleared} names sent without a secret key no longer count in their budgets`,
  };
}
