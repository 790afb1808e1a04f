import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { newId } from '../ids.ts';
import type { Change, ChangeEntry } from '../shared/change.ts';
import { type StoredAuditRow, toAuditRow } from './row.ts';
import type { AuditFilter, AuditRow, AuditStore } from './store.ts';

/** The audit log in PostgreSQL: `record` appends in the transaction of the store that calls it. */
export class PostgresAuditStore implements AuditStore, PostgresChangeLog {
  constructor(private readonly sql: Sql) {}

  async record(tx: Transaction, change: Change, entry: ChangeEntry): Promise<void> {
    const { actor } = change;
    const { target } = entry;
    await tx`INSERT INTO audit_log (id, at, project_id, actor_type, actor_id, actor_label, action, target_type, target_id, revision, ip, summary)
             VALUES (${newId('aud')}, ${Date.now()}, ${entry.project}, ${actor.type}, ${actor.id}, ${actor.label}, ${entry.action},
                     ${target.type}, ${target.id}, ${entry.revision ?? null}, ${change.ip}, ${entry.summary})`;
  }

  list(filter: AuditFilter): Promise<AuditRow[]> {
    const sql = this.sql;
    const when = (value: unknown, condition: ReturnType<Sql>) => (value === undefined ? sql`` : sql`AND ${condition}`);
    return storeCall(async () => {
      const rows = await sql<StoredAuditRow[]>`
        SELECT * FROM audit_log WHERE true
        ${when(filter.project, sql`project_id = ${filter.project ?? null}`)}
        ${when(filter.since, sql`at >= ${filter.since ?? null}`)}
        ${when(filter.until, sql`at <= ${filter.until ?? null}`)}
        ${when(filter.actor, sql`actor_id = ${filter.actor ?? null}`)}
        ${when(filter.action, sql`action = ${filter.action ?? null}`)}
        ${when(filter.target, sql`target_id = ${filter.target ?? null}`)}
        ${when(filter.before, sql`seq < ${filter.before ?? null}`)}
        ORDER BY seq DESC LIMIT ${filter.limit}`;
      return rows.map(toAuditRow);
    });
  }

  prune(before: number): Promise<number> {
    return storeCall(async () => (await this.sql`DELETE FROM audit_log WHERE at < ${before}`).count);
  }
}
