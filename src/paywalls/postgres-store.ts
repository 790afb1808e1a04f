import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { nextPhase, type PhaseRow } from '../experiments/phases.ts';
import type { Change } from '../shared/change.ts';
import { STALE, type Stale } from '../shared/stale.ts';
import { paywallArchived, paywallPublished, paywallWritten } from './paywall-entries.ts';
import type { PaywallRow, PaywallStore, Publication, RevisionRow, RevisionWrite, ServedPaywall, StoredRevision } from './store.ts';

/** The current phase's seed suffix and the catalog stamp, beside a paywall's columns. */
const SERVED_COLUMNS = `project_id, id, live_revision, serving_since,
  (SELECT seed_suffix FROM paywall_phases ph WHERE ph.project_id = p.project_id AND ph.paywall_id = p.id ORDER BY number DESC LIMIT 1) AS seed_suffix,
  (SELECT coalesce(sum(version), 0)::bigint FROM products pr WHERE pr.project_id = p.project_id) AS catalog_stamp`;

/**
 * The paywall row locked for this transaction, so that the version checked
 * stays true until the write commits.
 */
async function lockedPaywall(tx: Transaction, projectId: string, id: string): Promise<PaywallRow | undefined> {
  const [row] = await tx<PaywallRow[]>`SELECT * FROM paywalls WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`;
  return row;
}

/** Whether every product exists and is not deleted; their rows stay locked against a delete until the transaction ends. */
async function productsExist(tx: Transaction, projectId: string, ids: readonly string[]): Promise<boolean> {
  if (ids.length === 0) return true;
  const rows = await tx`SELECT id FROM products WHERE project_id = ${projectId} AND id = ANY(${[...ids]}) AND deleted_at IS NULL FOR SHARE`;
  return rows.length === new Set(ids).size;
}

/** Paywalls and their revisions in PostgreSQL (store.ts says what each method does). */
export class PostgresPaywallStore implements PaywallStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  list(projectId: string): Promise<PaywallRow[]> {
    return storeCall(async () => [...(await this.sql<PaywallRow[]>`SELECT * FROM paywalls WHERE project_id = ${projectId} ORDER BY id`)]);
  }

  get(projectId: string, id: string): Promise<PaywallRow | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<PaywallRow[]>`SELECT * FROM paywalls WHERE project_id = ${projectId} AND id = ${id}`;
      return row;
    });
  }

  revisions(projectId: string, id: string): Promise<RevisionRow[]> {
    return storeCall(async () => [
      ...(await this.sql<RevisionRow[]>`
        SELECT revision, document::json ->> 'name' AS name, created_at, published_at, created_by
        FROM paywall_revisions WHERE project_id = ${projectId} AND paywall_id = ${id} ORDER BY revision DESC`),
    ]);
  }

  revision(projectId: string, id: string, revision: number): Promise<StoredRevision | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<StoredRevision[]>`
        SELECT revision, document::json ->> 'name' AS name, document, created_at, published_at, created_by
        FROM paywall_revisions WHERE project_id = ${projectId} AND paywall_id = ${id} AND revision = ${revision}`;
      return row;
    });
  }

  addRevision(projectId: string, id: string, write: RevisionWrite, expected: number | undefined, change: Change): Promise<PaywallRow | Stale> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const existing = await lockedPaywall(tx, projectId, id);
        if (existing?.version !== expected || !(await productsExist(tx, projectId, write.products))) return STALE;
        const now = Date.now();
        let rows: PaywallRow[];
        if (existing) {
          rows = await tx<PaywallRow[]>`
            UPDATE paywalls SET name = ${write.name}, latest_revision = latest_revision + 1, version = version + 1, updated_at = ${now}
            WHERE project_id = ${projectId} AND id = ${id} RETURNING *`;
        } else {
          // Nothing to lock while the row does not exist: a concurrent creation that committed first leaves this one stale.
          rows = await tx<PaywallRow[]>`
            INSERT INTO paywalls (project_id, id, name, latest_revision, version, created_at, updated_at, serving_since)
            VALUES (${projectId}, ${id}, ${write.name}, 1, 1, ${now}, ${now}, ${now})
            ON CONFLICT (project_id, id) DO NOTHING RETURNING *`;
          if (rows.length === 0) return STALE;
        }
        const row = rows[0]!;
        await tx`INSERT INTO paywall_revisions (project_id, paywall_id, revision, document, created_at, created_by)
                 VALUES (${projectId}, ${id}, ${row.latest_revision}, ${write.document}, ${now}, ${JSON.stringify(change.actor)})`;
        await this.changes.record(tx, change, paywallWritten(row));
        return row;
      }),
    );
  }

  publish(
    projectId: string,
    id: string,
    publication: Publication,
    expected: number,
    change: Change,
  ): Promise<{ row: PaywallRow; phase: PhaseRow; started: boolean } | Stale> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const existing = await lockedPaywall(tx, projectId, id);
        if (existing?.version !== expected || !(await productsExist(tx, projectId, publication.products))) return STALE;
        const { revision, now } = publication;
        const marked = await tx`UPDATE paywall_revisions SET published_at = ${now}
                                WHERE project_id = ${projectId} AND paywall_id = ${id} AND revision = ${revision} RETURNING 1`;
        if (marked.length === 0) return STALE;
        const [row] = await tx<PaywallRow[]>`
          UPDATE paywalls SET live_revision = ${revision}, archived_at = NULL, version = version + 1, updated_at = ${now},
            serving_since = CASE WHEN archived_at IS NULL THEN serving_since ELSE ${now} END
          WHERE project_id = ${projectId} AND id = ${id} RETURNING *`;
        const [current] = await tx<PhaseRow[]>`
          SELECT number, revision, started_at, ended_at, design, seed_suffix FROM paywall_phases
          WHERE project_id = ${projectId} AND paywall_id = ${id} ORDER BY number DESC LIMIT 1`;
        const next = nextPhase(current, revision, publication.design, publication.options, now);
        if (next.started) {
          if (current)
            await tx`UPDATE paywall_phases SET ended_at = ${now} WHERE project_id = ${projectId} AND paywall_id = ${id} AND number = ${current.number}`;
          const { phase } = next;
          await tx`INSERT INTO paywall_phases (project_id, paywall_id, number, revision, started_at, design, seed_suffix)
                   VALUES (${projectId}, ${id}, ${phase.number}, ${phase.revision}, ${phase.started_at}, ${phase.design}, ${phase.seed_suffix})`;
        }
        await this.changes.record(tx, change, paywallPublished(existing, revision));
        return { row: row!, ...next };
      }),
    );
  }

  archive(projectId: string, id: string, expected: number, change: Change): Promise<PaywallRow | Stale> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const existing = await lockedPaywall(tx, projectId, id);
        if (existing?.version !== expected) return STALE;
        const now = Date.now();
        const [archived] = await tx<PaywallRow[]>`
          UPDATE paywalls SET archived_at = ${now}, version = version + 1, updated_at = ${now}
          WHERE project_id = ${projectId} AND id = ${id} AND archived_at IS NULL RETURNING *`;
        if (!archived) return existing;
        await this.changes.record(tx, change, paywallArchived(archived));
        return archived;
      }),
    );
  }

  servedPaywalls(): Promise<ServedPaywall[]> {
    return storeCall(async () => [...(await this.sql.unsafe<ServedPaywall[]>(`SELECT ${SERVED_COLUMNS} FROM paywalls p WHERE archived_at IS NULL`))]);
  }

  served(projectId: string, id: string): Promise<ServedPaywall | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql.unsafe<ServedPaywall[]>(
        `SELECT ${SERVED_COLUMNS} FROM paywalls p WHERE project_id = $1 AND id = $2 AND archived_at IS NULL`,
        [projectId, id],
      );
      return row;
    });
  }

  catalogStamp(projectId: string): Promise<number> {
    return storeCall(async () => {
      const [row] = await this.sql<{ stamp: number }[]>`SELECT coalesce(sum(version), 0)::bigint AS stamp FROM products WHERE project_id = ${projectId}`;
      return row!.stamp;
    });
  }
}
