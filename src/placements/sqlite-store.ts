import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { Change } from '../shared/change.ts';
import { STALE } from '../shared/stale.ts';
import { placementArchived, placementWritten } from './placement-entries.ts';
import type { PlacementRevisionRow, PlacementRow, PlacementStore, PlacementWrite, ServedPlacement, StoredPlacementRevision } from './store.ts';

/** A placement that is not archived, with its newest revision's document. */
const SERVED = `SELECT p.project_id, p.id, p.latest_revision AS revision, r.document FROM placements p
  JOIN placement_revisions r ON r.project_id = p.project_id AND r.placement_id = p.id AND r.revision = p.latest_revision
  WHERE p.archived_at IS NULL`;

export class SqlitePlacementStore implements PlacementStore {
  readonly list;
  readonly get;
  readonly revisions;
  readonly revision;
  readonly write;
  readonly archive;
  readonly servedPlacements;
  readonly served;

  constructor(db: Database, changes: SqliteChangeLog) {
    const byProject = db.prepare<[string], PlacementRow>('SELECT * FROM placements WHERE project_id = ? ORDER BY id');
    const byId = db.prepare<[string, string], PlacementRow>('SELECT * FROM placements WHERE project_id = ? AND id = ?');
    const insertPlacement = db.prepare(
      `INSERT INTO placements (project_id, id, name, latest_revision, version, created_at, updated_at) VALUES (?, ?, ?, 1, 1, ?, ?)`,
    );
    const newRevision = db.prepare(
      `UPDATE placements SET name = ?, latest_revision = latest_revision + 1, archived_at = NULL, version = version + 1, updated_at = ?
       WHERE project_id = ? AND id = ?`,
    );
    const insertRevision = db.prepare(
      'INSERT INTO placement_revisions (project_id, placement_id, revision, document, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const setArchived = db.prepare(
      'UPDATE placements SET archived_at = ?, version = version + 1, updated_at = ? WHERE project_id = ? AND id = ? AND archived_at IS NULL',
    );
    const revisionList = db.prepare<[string, string], PlacementRevisionRow>(
      `SELECT revision, json_extract(document, '$.name') AS name, created_at, created_by
       FROM placement_revisions WHERE project_id = ? AND placement_id = ? ORDER BY revision DESC`,
    );
    const revisionById = db.prepare<[string, string, number], StoredPlacementRevision>(
      `SELECT revision, json_extract(document, '$.name') AS name, document, created_at, created_by
       FROM placement_revisions WHERE project_id = ? AND placement_id = ? AND revision = ?`,
    );
    const servedAll = db.prepare<[], ServedPlacement>(SERVED);
    const servedOne = db.prepare<[string, string], ServedPlacement>(`${SERVED} AND p.project_id = ? AND p.id = ?`);

    this.list = sqliteRead(db, (projectId: string): PlacementRow[] => byProject.all(projectId));
    this.get = sqliteRead(db, (projectId: string, id: string): PlacementRow | undefined => byId.get(projectId, id));
    this.revisions = sqliteRead(db, (projectId: string, id: string): PlacementRevisionRow[] => revisionList.all(projectId, id));
    this.revision = sqliteRead(db, (projectId: string, id: string, revision: number): StoredPlacementRevision | undefined =>
      revisionById.get(projectId, id, revision),
    );
    this.write = sqliteWrite(db, (projectId: string, id: string, write: PlacementWrite, expected: number | undefined, change: Change) => {
      const existing = byId.get(projectId, id);
      if (existing?.version !== expected) return STALE;
      const now = Date.now();
      if (existing) newRevision.run(write.name, now, projectId, id);
      else insertPlacement.run(projectId, id, write.name, now, now);
      insertRevision.run(projectId, id, existing ? existing.latest_revision + 1 : 1, write.document, now, JSON.stringify(change.actor));
      const row = byId.get(projectId, id)!;
      changes.record(change, placementWritten(row));
      return row;
    });
    this.archive = sqliteWrite(db, (projectId: string, id: string, expected: number, change: Change) => {
      if (byId.get(projectId, id)?.version !== expected) return STALE;
      const now = Date.now();
      if (setArchived.run(now, now, projectId, id).changes === 0) return byId.get(projectId, id)!;
      const row = byId.get(projectId, id)!;
      changes.record(change, placementArchived(row));
      return row;
    });
    this.servedPlacements = sqliteRead(db, (): ServedPlacement[] => servedAll.all());
    this.served = sqliteRead(db, (projectId: string, id: string): ServedPlacement | undefined => servedOne.get(projectId, id));
  }
}
