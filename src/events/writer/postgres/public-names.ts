/**
 * The public names of analytics/name-budget.ts as the PostgreSQL writer reads
 * and writes them: loaded under the events lock for the projects of a group
 * whose admission needs them (then no other instance stores a name until
 * the commit), stored in the same transaction, forgotten after it. Ahead
 * of the lock they are not loaded: an event that needs them takes the
 * locked path (sink.ts).
 */

import { type ProjectNames, PUBLIC_WINDOW_MS, type PublicName, type PublicNames, projectNames } from '../../../analytics/name-budget.ts';
import type { Transaction } from '../../../db/postgres/connection.ts';

type GroupedRow = { project_id: string; kind: string; scope: string; every: number; recent: number };

const GROUPED = `SELECT project_id, kind, scope, count(*)::int AS every, count(*) FILTER (WHERE counted = 1 AND first_at > $1)::int AS recent
  FROM event_public_names WHERE project_id = ANY($2::text[]) GROUP BY project_id, kind, scope`;

const INSERT = `INSERT INTO event_public_names (project_id, kind, scope, name, first_at)
  SELECT *, $5::int8 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`;

export class PostgresPublicNames implements PublicNames {
  private readonly loaded = new Map<string, ProjectNames>();

  of(projectId: string): ProjectNames | undefined {
    return this.loaded.get(projectId);
  }

  async load(tx: Transaction, projectIds: readonly string[]): Promise<void> {
    const rows = await tx.unsafe<GroupedRow[]>(GROUPED, [Date.now() - PUBLIC_WINDOW_MS, projectIds as string[]]);
    for (const projectId of projectIds)
      this.loaded.set(
        projectId,
        projectNames(
          projectId,
          rows.filter((row) => row.project_id === projectId),
        ),
      );
  }

  async store(tx: Transaction, names: readonly PublicName[], now: number): Promise<void> {
    if (names.length === 0) return;
    const column = (key: keyof PublicName) => names.map((name) => name[key]);
    await tx.unsafe(INSERT, [column('projectId'), column('kind'), column('scope'), column('name'), now]);
  }

  /** After each transaction. */
  forget(): void {
    this.loaded.clear();
  }
}
