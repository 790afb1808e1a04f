import type { Database } from '../db/database.ts';

import type { PaywallRow, RevisionRow } from './store.ts';

interface RevisionWithDocument extends RevisionRow {
  /** The validated document as JSON text. */
  document: string;
}

/** A non-archived paywall as the in-memory registry of live paywalls needs it. */
interface ServedPaywallRow {
  project_id: string;
  id: string;
  live_revision: number | null;
  /** The current phase's seed suffix (null: none, or no phase). */
  seed_suffix: string | null;
}

/**
 * SQL for paywalls and their revisions. Revisions are append-only; the
 * paywall row says which is newest, which is live and whether it is archived.
 * Callers that read, check and then write run the steps inside transaction().
 */
export class SqlitePaywallStore {
  private readonly db: Database;
  private readonly byProject;
  private readonly byId;
  private readonly insertPaywall;
  private readonly newRevision;
  private readonly insertRevision;
  private readonly setLive;
  private readonly markPublished;
  private readonly setArchived;
  private readonly revisionList;
  private readonly revisionById;
  private readonly served;
  private readonly suffix;
  private readonly catalogs;
  private readonly catalog;

  constructor(db: Database) {
    this.db = db;
    this.byProject = db.prepare<[string], PaywallRow>('SELECT * FROM paywalls WHERE project_id = ? ORDER BY id');
    this.byId = db.prepare<[string, string], PaywallRow>('SELECT * FROM paywalls WHERE project_id = ? AND id = ?');
    this.insertPaywall = db.prepare(
      `INSERT INTO paywalls (project_id, id, name, latest_revision, version, created_at, updated_at)
       VALUES (?, ?, ?, 1, 1, ?, ?)`,
    );
    this.newRevision = db.prepare(
      `UPDATE paywalls SET name = ?, latest_revision = latest_revision + 1, version = version + 1, updated_at = ?
       WHERE project_id = ? AND id = ?`,
    );
    this.insertRevision = db.prepare('INSERT INTO paywall_revisions (project_id, paywall_id, revision, document, created_at) VALUES (?, ?, ?, ?, ?)');
    this.setLive = db.prepare(
      `UPDATE paywalls SET live_revision = ?, archived_at = NULL, version = version + 1, updated_at = ?
       WHERE project_id = ? AND id = ?`,
    );
    this.markPublished = db.prepare('UPDATE paywall_revisions SET published_at = ? WHERE project_id = ? AND paywall_id = ? AND revision = ?');
    this.setArchived = db.prepare(
      `UPDATE paywalls SET archived_at = ?, version = version + 1, updated_at = ?
       WHERE project_id = ? AND id = ? AND archived_at IS NULL`,
    );
    this.revisionList = db.prepare<[string, string], RevisionRow>(
      `SELECT revision, json_extract(document, '$.name') AS name, created_at, published_at
       FROM paywall_revisions WHERE project_id = ? AND paywall_id = ? ORDER BY revision DESC`,
    );
    this.revisionById = db.prepare<[string, string, number], RevisionWithDocument>(
      `SELECT revision, json_extract(document, '$.name') AS name, document, created_at, published_at
       FROM paywall_revisions WHERE project_id = ? AND paywall_id = ? AND revision = ?`,
    );
    this.served = db.prepare<[], ServedPaywallRow>(
      `SELECT project_id, id, live_revision,
              (SELECT seed_suffix FROM paywall_phases ph WHERE ph.project_id = p.project_id AND ph.paywall_id = p.id ORDER BY number DESC LIMIT 1) AS seed_suffix
       FROM paywalls p WHERE archived_at IS NULL`,
    );
    this.suffix = db
      .prepare<[string, string], string | null>('SELECT seed_suffix FROM paywall_phases WHERE project_id = ? AND paywall_id = ? ORDER BY number DESC LIMIT 1')
      .pluck();
    // Product versions only grow and product rows are never removed, so their sum changes whenever the catalog does.
    this.catalogs = db.prepare<[], { project_id: string; stamp: number }>('SELECT project_id, total(version) AS stamp FROM products GROUP BY project_id');
    this.catalog = db.prepare<[string], number>('SELECT total(version) FROM products WHERE project_id = ?').pluck();
  }

  /** Runs `fn` in an IMMEDIATE transaction: what it reads stays true until it has written. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  list(projectId: string): PaywallRow[] {
    return this.byProject.all(projectId);
  }

  get(projectId: string, id: string): PaywallRow | undefined {
    return this.byId.get(projectId, id);
  }

  /** Appends a revision (creating the paywall with revision 1 if needed) and returns the paywall after it. */
  addRevision(projectId: string, id: string, name: string, document: string): PaywallRow {
    const now = Date.now();
    const existing = this.byId.get(projectId, id);
    if (existing) this.newRevision.run(name, now, projectId, id);
    else this.insertPaywall.run(projectId, id, name, now, now);
    const revision = existing ? existing.latest_revision + 1 : 1;
    this.insertRevision.run(projectId, id, revision, document, now);
    return this.byId.get(projectId, id)!;
  }

  /** Makes `revision` the live one (unarchiving the paywall) and returns the paywall after it. */
  publish(projectId: string, id: string, revision: number): PaywallRow {
    const now = Date.now();
    this.setLive.run(revision, now, projectId, id);
    this.markPublished.run(now, projectId, id, revision);
    return this.byId.get(projectId, id)!;
  }

  /** Archives the paywall (a no-op when it already is) and returns it. */
  archive(projectId: string, id: string): PaywallRow {
    const now = Date.now();
    this.setArchived.run(now, now, projectId, id);
    return this.byId.get(projectId, id)!;
  }

  revisions(projectId: string, id: string): RevisionRow[] {
    return this.revisionList.all(projectId, id);
  }

  revision(projectId: string, id: string, revision: number): RevisionWithDocument | undefined {
    return this.revisionById.get(projectId, id, revision);
  }

  /** Every paywall that is not archived, published or not. */
  servedPaywalls(): ServedPaywallRow[] {
    return this.served.all();
  }

  /** A number per project that changes whenever its product catalog does. */
  catalogStamps(): Map<string, number> {
    return new Map(this.catalogs.all().map((row) => [row.project_id, row.stamp]));
  }

  /** The current phase's seed suffix: '' when it has none (or the paywall has no phase). */
  seedSuffix(projectId: string, id: string): string {
    return this.suffix.get(projectId, id) ?? '';
  }

  catalogStamp(projectId: string): number {
    return this.catalog.get(projectId) ?? 0;
  }
}
