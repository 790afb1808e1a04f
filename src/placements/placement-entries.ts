import type { ChangeEntry } from '../shared/change.ts';
import type { PlacementRow } from './store.ts';

/** The audit entries of the placement stores' changes. */
export function placementWritten(row: PlacementRow): ChangeEntry {
  const created = row.latest_revision === 1;
  return {
    project: row.project_id,
    action: 'placement.written',
    target: { type: 'placement', id: row.id },
    revision: row.latest_revision,
    summary: `${created ? 'created placement' : 'wrote'} ${row.id} r${row.latest_revision} (${row.name})`,
  };
}

export function placementArchived(row: PlacementRow): ChangeEntry {
  return { project: row.project_id, action: 'placement.archived', target: { type: 'placement', id: row.id }, summary: `archived placement ${row.id}` };
}
