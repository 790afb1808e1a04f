import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import { nextPhase, type PhaseRow } from '../experiments/phases.ts';
import type { Change } from '../shared/change.ts';
import { STALE } from '../shared/stale.ts';
import { paywallArchived, paywallPublished, paywallWritten } from './paywall-entries.ts';
import type { PaywallRow, PaywallStore, Publication, RevisionRow, RevisionWrite, ServedPaywall, StoredRevision } from './store.ts';

/** The current phase's seed suffix and the catalog stamp, beside a paywall's columns. */
const SERVED_COLUMNS = `project_id, id, live_revision, serving_since,
  (SELECT seed_suffix FROM paywall_phases ph WHERE ph.project_id = p.project_id AND ph.paywall_id = p.id ORDER BY number DESC LIMIT 1) AS seed_suffix,
  (SELECT total(version) FROM products pr WHERE pr.project_id = p.project_id) AS catalog_stamp`;

export class SqlitePaywallStore implements PaywallStore {
  readonly list;
  readonly get;
  readonly revisions;
  readonly revision;
  readonly addRevision;
  readonly publish;
  readonly archive;
  readonly servedPaywalls;
  readonly served;
  readonly catalogStamp;

  constructor(db: Database, changes: SqliteChangeLog) {
    const byProject = db.prepare<[string], PaywallRow>('SELECT * FROM paywalls WHERE project_id = ? ORDER BY id');
    const byId = db.prepare<[string, string], PaywallRow>('SELECT * FROM paywalls WHERE project_id = ? AND id = ?');
    const insertPaywall = db.prepare(
      `INSERT INTO paywalls (project_id, id, name, latest_revision, version, created_at, updated_at, serving_since)
       VALUES (?, ?, ?, 1, 1, ?, ?, ?)`,
    );
    const newRevision = db.prepare(
      `UPDATE paywalls SET name = ?, latest_revision = latest_revision + 1, version = version + 1, updated_at = ?
       WHERE project_id = ? AND id = ?`,
    );
    const insertRevision = db.prepare(
      'INSERT INTO paywall_revisions (project_id, paywall_id, revision, document, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const setLive = db.prepare(
      `UPDATE paywalls SET live_revision = ?, archived_at = NULL, version = version + 1, updated_at = ?,
         serving_since = CASE WHEN archived_at IS NULL THEN serving_since ELSE ? END
       WHERE project_id = ? AND id = ?`,
    );
    const markPublished = db.prepare('UPDATE paywall_revisions SET published_at = ? WHERE project_id = ? AND paywall_id = ? AND revision = ?');
    const setArchived = db.prepare(
      `UPDATE paywalls SET archived_at = ?, version = version + 1, updated_at = ?
       WHERE project_id = ? AND id = ? AND archived_at IS NULL`,
    );
    const revisionList = db.prepare<[string, string], RevisionRow>(
      `SELECT revision, json_extract(document, '$.name') AS name, created_at, published_at, created_by
       FROM paywall_revisions WHERE project_id = ? AND paywall_id = ? ORDER BY revision DESC`,
    );
    const revisionById = db.prepare<[string, string, number], StoredRevision>(
      `SELECT revision, json_extract(document, '$.name') AS name, document, created_at, published_at, created_by
       FROM paywall_revisions WHERE project_id = ? AND paywall_id = ? AND revision = ?`,
    );
    const currentPhase = db.prepare<[string, string], PhaseRow>(
      `SELECT number, revision, started_at, ended_at, design, seed_suffix FROM paywall_phases
       WHERE project_id = ? AND paywall_id = ? ORDER BY number DESC LIMIT 1`,
    );
    const endPhase = db.prepare('UPDATE paywall_phases SET ended_at = ? WHERE project_id = ? AND paywall_id = ? AND number = ?');
    const insertPhase = db.prepare(
      'INSERT INTO paywall_phases (project_id, paywall_id, number, revision, started_at, design, seed_suffix) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const productLive = db.prepare<[string, string], number>('SELECT count(*) FROM products WHERE project_id = ? AND id = ? AND deleted_at IS NULL').pluck();
    const servedAll = db.prepare<[], ServedPaywall>(`SELECT ${SERVED_COLUMNS} FROM paywalls p WHERE archived_at IS NULL`);
    const servedOne = db.prepare<[string, string], ServedPaywall>(
      `SELECT ${SERVED_COLUMNS} FROM paywalls p WHERE project_id = ? AND id = ? AND archived_at IS NULL`,
    );
    // Product versions only grow and product rows are never removed, so their sum changes whenever the catalog does.
    const catalog = db.prepare<[string], number>('SELECT total(version) FROM products WHERE project_id = ?').pluck();

    const productsExist = (projectId: string, ids: readonly string[]) => ids.every((id) => productLive.get(projectId, id) === 1);

    this.list = sqliteRead(db, (projectId: string): PaywallRow[] => byProject.all(projectId));
    this.get = sqliteRead(db, (projectId: string, id: string): PaywallRow | undefined => byId.get(projectId, id));
    this.revisions = sqliteRead(db, (projectId: string, id: string): RevisionRow[] => revisionList.all(projectId, id));
    this.revision = sqliteRead(db, (projectId: string, id: string, revision: number): StoredRevision | undefined => revisionById.get(projectId, id, revision));
    this.addRevision = sqliteWrite(db, (projectId: string, id: string, write: RevisionWrite, expected: number | undefined, change: Change) => {
      const existing = byId.get(projectId, id);
      if (existing?.version !== expected || !productsExist(projectId, write.products)) return STALE;
      const now = Date.now();
      if (existing) newRevision.run(write.name, now, projectId, id);
      else insertPaywall.run(projectId, id, write.name, now, now, now);
      insertRevision.run(projectId, id, existing ? existing.latest_revision + 1 : 1, write.document, now, JSON.stringify(change.actor));
      const row = byId.get(projectId, id)!;
      changes.record(change, paywallWritten(row));
      return row;
    });
    this.publish = sqliteWrite(db, (projectId: string, id: string, publication: Publication, expected: number, change: Change) => {
      const existing = byId.get(projectId, id);
      if (existing?.version !== expected || !productsExist(projectId, publication.products)) return STALE;
      if (!revisionById.get(projectId, id, publication.revision)) return STALE;
      const { revision, now } = publication;
      setLive.run(revision, now, now, projectId, id);
      markPublished.run(now, projectId, id, revision);
      const current = currentPhase.get(projectId, id);
      const next = nextPhase(current, revision, publication.design, publication.options, now);
      if (next.started) {
        if (current) endPhase.run(now, projectId, id, current.number);
        const { phase } = next;
        insertPhase.run(projectId, id, phase.number, phase.revision, phase.started_at, phase.design, phase.seed_suffix);
      }
      changes.record(change, paywallPublished(existing, revision));
      return { row: byId.get(projectId, id)!, ...next };
    });
    this.archive = sqliteWrite(db, (projectId: string, id: string, expected: number, change: Change) => {
      if (byId.get(projectId, id)?.version !== expected) return STALE;
      const now = Date.now();
      if (setArchived.run(now, now, projectId, id).changes === 0) return byId.get(projectId, id)!;
      const row = byId.get(projectId, id)!;
      changes.record(change, paywallArchived(row));
      return row;
    });
    this.servedPaywalls = sqliteRead(db, (): ServedPaywall[] => servedAll.all());
    this.served = sqliteRead(db, (projectId: string, id: string): ServedPaywall | undefined => servedOne.get(projectId, id));
    this.catalogStamp = sqliteRead(db, (projectId: string): number => catalog.get(projectId) ?? 0);
  }
}
