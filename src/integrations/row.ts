/** An integrations row as both backends read it back, and the stored configuration it is. */
import type { StoredConfiguration } from './store.ts';

export interface IntegrationRow {
  config: string;
  updated_at: number;
}

export function toConfiguration(row: IntegrationRow): StoredConfiguration {
  return { config: JSON.parse(row.config) as unknown, updatedAt: row.updated_at };
}
