import type { Action } from '../shared/change.ts';
import type { AuditRow } from './store.ts';

/** An audit_log row as both databases return it. */
export interface StoredAuditRow {
  seq: number;
  id: string;
  at: number;
  project_id: string | null;
  actor_type: 'user' | 'key' | 'cli';
  actor_id: string;
  actor_label: string;
  action: Action;
  target_type: string;
  target_id: string;
  revision: number | null;
  ip: string | null;
  summary: string;
}

export function toAuditRow(row: StoredAuditRow): AuditRow {
  return {
    seq: row.seq,
    id: row.id,
    at: row.at,
    project: row.project_id,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    ...(row.revision === null ? {} : { revision: row.revision }),
    ip: row.ip,
    summary: row.summary,
  };
}
