import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { Change } from '../shared/change.ts';
import { STALE, type Stale } from '../shared/stale.ts';
import { placementArchived, placementWritten } from './placement-entries.ts';
import type { PlacementRevisionRow, PlacementRow, PlacementStore, PlacementWrite, ServedPlacement, StoredPlacementRevision } from './store.ts';

/** A placement that is not archived, with its newest revision's document. */
const SERVED = `SELECT p.project_id, p.id, p.latest_revision AS revision, r.document FROM placements p
  JOIN placement_revisions r ON r.project_id = p.project_id AND r.placement_id = p.id AND r.revision = p.latest_revision
  WHERE p.archived_at IS NULL`;

/** The placement row locked for this transaction, so that the version checked stays true until the write commits. */
async function lockedPlacement(tx: Transaction, projectId: string, id: string): Promise<PlacementRow | undefined> {
  const [row] = await tx<PlacementRow[]>`SELECT * FROM placements WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`;
  return row;
}

/** Placements and their revisions in PostgreSQL (store.ts says what each method does). */
export class PostgresPlacementStore implements PlacementStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  list(projectId: string): Promise<PlacementRow[]> {
    return storeCall(async () => [...(await this.sql<PlacementRow[]>`SELECT * FROM placements WHERE project_id = ${projectId} ORDER BY id`)]);
  }

  get(projectId: string, id: string): Promise<PlacementRow | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<PlacementRow[]>`SELECT * FROM placements WHERE project_id = ${projectId} AND id = ${id}`;
      return row;
    });
  }

  revisions(projectId: string, id: string): Promise<PlacementRevisionRow[]> {
    return storeCall(async () => [
      ...(await this.sql<PlacementRevisionRow[]>`
        SELECT revision, document::json ->> 'name' AS name, created_at, created_by
        FROM placement_revisions WHERE project_id = ${projectId} AND placement_id = ${id} ORDER BY revision DESC`),
    ]);
  }

  revision(projectId: string, id: string, revision: number): Promise<StoredPlacementRevision | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<StoredPlacementRevision[]>`
        SELECT revision, document::json ->> 'name' AS name, document, created_at, created_by
        FROM placement_revisions WHERE project_id = ${projectId} AND placement_id = ${id} AND revision = ${revision}`;
      return row;
    });
  }

  write(projectId: string, id: string, write: PlacementWrite, expected: number | undefined, change: Change): Promise<PlacementRow | Stale> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const existing = await lockedPlacement(tx, projectId, id);
        if (existing?.version !== expected) return STALE;
        const now = Date.now();
        let rows: PlacementRow[];
        if (existing) {
          rows = await tx<PlacementRow[]>`
            UPDATE placements SET name = ${write.name}, latest_revision = latest_revision + 1, archived_at = NULL, version = version + 1,
              updated_at = ${now}
            WHERE project_id = ${projectId} AND id = ${id} RETURNING *`;
        } else {
          // Nothing to lock while the row does not exist: a concurrent creation that committed first leaves this one stale.
          rows = await tx<PlacementRow[]>`
            INSERT INTO placements (project_id, id, name, latest_revision, version, created_at, updated_at)
            VALUES (${projectId}, ${id}, ${write.name}, 1, 1, ${now}, ${now})
            ON CONFLICT (project_id, id) DO NOTHING RETURNING *`;
          if (rows.length === 0) return STALE;
        }
        const row = rows[0]!;
        await tx`INSERT INTO placement_revisions (project_id, placement_id, revision, document, created_at, created_by)
                 VALUES (${projectId}, ${id}, ${row.latest_revision}, ${write.document}, ${now}, ${JSON.stringify(change.actor)})`;
        await this.changes.record(tx, change, placementWritten(row));
        return row;
      }),
    );
  }

  archive(projectId: string, id: string, expected: number, change: Change): Promise<PlacementRow | Stale> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const existing = await lockedPlacement(tx, projectId, id);
        if (existing?.version !== expected) return STALE;
        const now = Date.now();
        const [archived] = await tx<PlacementRow[]>`
          UPDATE placements SET archived_at = ${now}, version = version + 1, updated_at = ${now}
          WHERE project_id = ${projectId} AND id = ${id} AND archived_at IS NULL RETURNING *`;
        if (!archived) return existing;
        await this.changes.record(tx, change, placementArchived(archived));
        return archived;
      }),
    );
  }

  servedPlacements(): Promise<ServedPlacement[]> {
    return storeCall(async () => [...(await this.sql.unsafe<ServedPlacement[]>(SERVED))]);
  }

  served(projectId: string, id: string): Promise<ServedPlacement | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql.unsafe<ServedPlacement[]>(`${SERVED} AND p.project_id = $1 AND p.id = $2`, [projectId, id]);
      return row;
    });
  }
}
