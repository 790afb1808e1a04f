/**
 * Each project's connector configurations, and the Stripe customers a
 * checkout named (written with the records, PurchaseStore.insert). The
 * interface every backend implements (sqlite-store.ts; CONTRIBUTING.md,
 * "The storage seam"): each method is one transaction.
 */
import type { Change, ChangeEntry } from '../shared/change.ts';
import type { Provider } from './schema.ts';

export function connectorConfigured(projectId: string, provider: Provider): ChangeEntry {
  return { project: projectId, action: 'connector.configured', target: { type: 'connector', id: provider }, summary: `configured the ${provider} connector` };
}

/** A connector's configuration as stored, and when it was last written. */
export interface StoredConfiguration {
  config: unknown;
  updatedAt: number;
}

export interface IntegrationStore {
  /** Creates or replaces the project's configuration of a provider, with its audit entry (`change`: who). */
  put(projectId: string, provider: Provider, config: unknown, now: number, change: Change): Promise<void>;
  get(projectId: string, provider: Provider): Promise<StoredConfiguration | undefined>;
  /** Every project's configurations (sealing those stored in plaintext before, SecretBox). */
  all(): Promise<({ projectId: string; provider: Provider } & StoredConfiguration)[]>;
  /** The user a store's customer id was first named with. */
  userOfCustomer(projectId: string, provider: Provider, customer: string): Promise<string | undefined>;
}
