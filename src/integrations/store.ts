/**
 * Each project's connector configurations, and the Stripe customers a
 * checkout named (written with the records, PurchaseStore.insert). The
 * interface every backend implements (sqlite-store.ts; CONTRIBUTING.md,
 * "The storage seam"): each method is one transaction.
 */
import type { Provider } from './schema.ts';

export interface IntegrationStore {
  /** Creates or replaces the project's configuration of a provider. */
  put(projectId: string, provider: Provider, config: unknown, now: number): Promise<void>;
  get(projectId: string, provider: Provider): Promise<{ config: unknown; updatedAt: number } | undefined>;
  /** Every project's configurations (sealing those stored in plaintext before, SecretBox). */
  all(): Promise<{ projectId: string; provider: Provider; config: unknown; updatedAt: number }[]>;
  /** The user a store's customer id was first named with. */
  userOfCustomer(projectId: string, provider: Provider, customer: string): Promise<string | undefined>;
}
