/**
 * The public names of analytics/name-budget.ts as the SQLite writer reads and
 * writes them: on its own connection, inside the transaction that admits the
 * events, loaded per project when an event brings a name no paywall
 * declares (rare: the common event brings none) and forgotten after the
 * transaction, so an owner's clear from another connection counts at once.
 */

import { type ProjectNames, PUBLIC_WINDOW_MS, type PublicName, type PublicNames, projectNames } from '../../analytics/name-budget.ts';
import type { Database } from '../../db/database.ts';

/** Grouped per counter: every stored name, and those counting in the budget now (not cleared, first seen within the window). */
const GROUPED_NAMES = `SELECT kind, scope, count(*) AS every, coalesce(sum(CASE WHEN counted = 1 AND first_at > ? THEN 1 ELSE 0 END), 0) AS recent
  FROM event_public_names WHERE project_id = ? GROUP BY kind, scope`;

export class SqlitePublicNames implements PublicNames {
  private readonly loaded = new Map<string, ProjectNames>();
  private readonly grouped;
  private readonly insert;

  constructor(db: Database) {
    this.grouped = db.prepare<[number, string], { kind: string; scope: string; every: number; recent: number }>(GROUPED_NAMES);
    this.insert = db.prepare<[string, string, string, string, number]>(
      'INSERT INTO event_public_names (project_id, kind, scope, name, first_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
  }

  of(projectId: string): ProjectNames {
    let names = this.loaded.get(projectId);
    if (!names) this.loaded.set(projectId, (names = projectNames(projectId, this.grouped.all(Date.now() - PUBLIC_WINDOW_MS, projectId))));
    return names;
  }

  /** Stores the names admitted in the transaction, inside it. */
  store(names: readonly PublicName[], now: number): void {
    for (const { projectId, kind, scope, name } of names) this.insert.run(projectId, kind, scope, name, now);
  }

  /** After each transaction. */
  forget(): void {
    this.loaded.clear();
  }
}
