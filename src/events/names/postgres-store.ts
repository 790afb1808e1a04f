import type { NameKind } from '../../analytics/name-budget.ts';
import type { PostgresChangeLog } from '../../db/change-log.ts';
import type { Sql } from '../../db/postgres/connection.ts';
import { storeCall } from '../../db/postgres/store-call.ts';
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

/** The public names in PostgreSQL (store.ts says what each method does). */
export class PostgresEventNameStore implements EventNameStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  list(projectId: string, limit: number): Promise<{ names: StoredPublicName[]; total: number }> {
    return storeCall(async () => {
      const rows = await this.sql<Row[]>`
        SELECT kind, scope, name, first_at, counted FROM event_public_names WHERE project_id = ${projectId}
        ORDER BY first_at DESC, kind, scope, name LIMIT ${limit}`;
      const [count] = await this.sql<{ total: number }[]>`SELECT count(*)::int AS total FROM event_public_names WHERE project_id = ${projectId}`;
      return {
        names: rows.map((row) => ({ kind: row.kind, scope: row.scope, name: row.name, firstAt: row.first_at, counted: row.counted === 1 })),
        total: count!.total,
      };
    });
  }

  clear(projectId: string, change: Change): Promise<number> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const cleared = (await tx`UPDATE event_public_names SET counted = 0 WHERE project_id = ${projectId} AND counted = 1`).count;
        if (cleared > 0) await this.changes.record(tx, change, namesCleared(projectId, cleared));
        return cleared;
      }),
    );
  }
}
