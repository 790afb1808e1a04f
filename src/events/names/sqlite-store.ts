import type { NameKind } from '../../analytics/name-budget.ts';
import type { SqliteChangeLog } from '../../db/change-log.ts';
import type { Database } from '../../db/database.ts';
import { sqliteRead, sqliteWrite } from '../../db/sqlite-transaction.ts';
import type { Change } from '../../shared/change.ts';
import { namesCleared } from './cleared.ts';
import type { EventNameStore, StoredPublicName } from './store.ts';

interface Row {
  kind: NameKind;
  scope: string;
  name: string;
  first_at: number;
  counted: number;
}

export class SqliteEventNameStore implements EventNameStore {
  readonly list;
  readonly clear;

  constructor(db: Database, changes: SqliteChangeLog) {
    const newest = db.prepare<[string, number], Row>(
      'SELECT kind, scope, name, first_at, counted FROM event_public_names WHERE project_id = ? ORDER BY first_at DESC, kind, scope, name LIMIT ?',
    );
    const total = db.prepare<[string], number>('SELECT count(*) FROM event_public_names WHERE project_id = ?').pluck();
    const uncount = db.prepare<[string]>('UPDATE event_public_names SET counted = 0 WHERE project_id = ? AND counted = 1');
    this.list = sqliteRead(db, (projectId: string, limit: number): { names: StoredPublicName[]; total: number } => ({
      names: newest
        .all(projectId, limit)
        .map((row) => ({ kind: row.kind, scope: row.scope, name: row.name, firstAt: row.first_at, counted: row.counted === 1 })),
      total: total.get(projectId) ?? 0,
    }));
    this.clear = sqliteWrite(db, (projectId: string, change: Change): number => {
      const cleared = uncount.run(projectId).changes;
      if (cleared > 0) changes.record(change, namesCleared(projectId, cleared));
      return cleared;
    });
  }
}
