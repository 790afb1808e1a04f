import type { Database } from '../db/database.ts';
import { sqliteRead } from '../db/sqlite-transaction.ts';
import type { PhaseRow } from './phases.ts';
import type { PhaseStore } from './store.ts';

export class SqlitePhaseStore implements PhaseStore {
  readonly phases;

  constructor(db: Database) {
    const list = db.prepare<[string, string], PhaseRow>(
      'SELECT number, revision, started_at, ended_at, design, seed_suffix FROM paywall_phases WHERE project_id = ? AND paywall_id = ? ORDER BY number',
    );
    this.phases = sqliteRead(db, (projectId: string, paywallId: string): PhaseRow[] => list.all(projectId, paywallId));
  }
}
