import type { Sql } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { PhaseRow } from './phases.ts';
import type { PhaseStore } from './store.ts';

/** Experiment phases in PostgreSQL, written by PostgresPaywallStore.publish (store.ts). */
export class PostgresPhaseStore implements PhaseStore {
  constructor(private readonly sql: Sql) {}

  phases(projectId: string, paywallId: string): Promise<PhaseRow[]> {
    return storeCall(async () => [
      ...(await this.sql<PhaseRow[]>`
        SELECT number, revision, started_at, ended_at, design, seed_suffix FROM paywall_phases
        WHERE project_id = ${projectId} AND paywall_id = ${paywallId} ORDER BY number`),
    ]);
  }
}
