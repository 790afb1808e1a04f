/** An integrations row as both backends read it back, and the stored configuration it is. */
import type { Provider } from './schema.ts';
import type { StoredConfiguration } from './store.ts';

export interface IntegrationRow {
  config: string;
  updated_at: number;
}

/** The row with the project and provider it belongs to: what a read across every project returns. */
export type ProjectIntegrationRow = IntegrationRow & { project_id: string; provider: Provider };

export function toConfiguration(row: IntegrationRow): StoredConfiguration {
  return { config: JSON.parse(row.config) as unknown, updatedAt: row.updated_at };
}

export function toProjectConfiguration(row: ProjectIntegrationRow): { projectId: string; provider: Provider } & StoredConfiguration {
  return { projectId: row.project_id, provider: row.provider, ...toConfiguration(row) };
}
