import type { ChangeEntry } from '../shared/change.ts';
import type { PaywallRow } from './store.ts';

/** The audit entries of the paywall stores' changes. */
export function paywallWritten(row: PaywallRow): ChangeEntry {
  const created = row.latest_revision === 1;
  return {
    project: row.project_id,
    action: 'paywall.written',
    target: { type: 'paywall', id: row.id },
    revision: row.latest_revision,
    summary: `${created ? 'created paywall' : 'wrote'} ${row.id} r${row.latest_revision} (${row.name})`,
  };
}

/** Publishing a revision older than the newest is a rollback (the publish route's own words). */
export function paywallPublished(before: PaywallRow, revision: number): ChangeEntry {
  const rollback = revision < before.latest_revision;
  return {
    project: before.project_id,
    action: rollback ? 'paywall.rolled_back' : 'paywall.published',
    target: { type: 'paywall', id: before.id },
    revision,
    summary: `${rollback ? 'rolled back' : 'published'} ${before.id} to r${revision}${before.live_revision === null ? '' : ` (live was r${before.live_revision})`}`,
  };
}

export function paywallArchived(row: PaywallRow): ChangeEntry {
  return { project: row.project_id, action: 'paywall.archived', target: { type: 'paywall', id: row.id }, summary: `archived ${row.id}` };
}
