import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import { newId } from '../ids.ts';
import type { Change, ChangeEntry } from '../shared/change.ts';
import { type StoredAuditRow, toAuditRow } from './row.ts';
import type { AuditFilter, AuditRow, AuditStore } from './store.ts';

const CONDITIONS: [keyof AuditFilter, string][] = [
  ['project', 'project_id = @project'],
  ['since', 'at >= @since'],
  ['until', 'at <= @until'],
  ['actor', 'actor_id = @actor'],
  ['action', 'action = @action'],
  ['target', 'target_id = @target'],
  ['before', 'seq < @before'],
];

/** The audit log on SQLite: `record` appends inside the transaction of the store that calls it (same connection). */
export class SqliteAuditStore implements AuditStore, SqliteChangeLog {
  private readonly insert;
  /** One prepared statement per combination of filters, so that each uses the indexes its filters allow. */
  private readonly queries = new Map<string, ReturnType<Database['prepare']>>();
  readonly list;
  readonly prune;

  constructor(private readonly db: Database) {
    this.insert = db.prepare(
      `INSERT INTO audit_log (id, at, project_id, actor_type, actor_id, actor_label, action, target_type, target_id, revision, ip, summary)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const remove = db.prepare('DELETE FROM audit_log WHERE at < ?');
    this.list = sqliteRead(db, (filter: AuditFilter): AuditRow[] => {
      const used = CONDITIONS.filter(([name]) => filter[name] !== undefined);
      const key = used.map(([name]) => name).join(',');
      let query = this.queries.get(key);
      if (!query) {
        const where = used.length === 0 ? '' : `WHERE ${used.map(([, condition]) => condition).join(' AND ')}`;
        query = this.db.prepare(`SELECT * FROM audit_log ${where} ORDER BY seq DESC LIMIT @limit`);
        this.queries.set(key, query);
      }
      const parameters = Object.fromEntries([...used.map(([name]) => [name, filter[name]]), ['limit', filter.limit]]);
      return (query.all(parameters) as StoredAuditRow[]).map(toAuditRow);
    });
    this.prune = sqliteWrite(db, (before: number): number => remove.run(before).changes);
  }

  record(change: Change, entry: ChangeEntry): void {
    const { actor } = change;
    const { target } = entry;
    this.insert.run(
      newId('aud'),
      Date.now(),
      entry.project,
      actor.type,
      actor.id,
      actor.label,
      entry.action,
      target.type,
      target.id,
      entry.revision ?? null,
      change.ip,
      entry.summary,
    );
  }
}
