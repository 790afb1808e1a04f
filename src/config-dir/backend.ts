/**
 * Where a configuration directory is exported from and applied to: a server
 * through its management API (http-backend.ts) or a database file through the
 * same services the server runs (store-backend.ts). Every write names the
 * ETag it expects, so a concurrent edit is refused rather than overwritten.
 */
import type { PaywallOutput } from '../paywalls/document/schema.ts';
import type { PlacementDocument } from '../placements/schema.ts';
import type { CurrentState, ProductContent } from './state.ts';

/** A write's condition: If-Match with the tag read, or create-only (If-None-Match: *). */
export type Expect = { ifMatch: string } | { create: true };

export interface ConfigBackend {
  /** Where it writes, for messages: a URL or a database file and project. Never contains a key. */
  readonly target: string;
  read(): Promise<CurrentState>;
  /** One revision's document (the live one, when it is not the newest). */
  revision(paywallId: string, revision: number): Promise<PaywallOutput>;
  putProduct(id: string, content: ProductContent, expect: Expect): Promise<void>;
  deleteProduct(id: string, ifMatch: string): Promise<void>;
  /** Writes a new revision and returns its number and the paywall's new tag. */
  putPaywall(id: string, document: PaywallOutput, expect: Expect): Promise<{ revision: number; tag: string }>;
  publish(id: string, revision: number, ifMatch: string): Promise<string>;
  archive(id: string, ifMatch: string): Promise<string>;
  /** Writes a placement's new revision (served at once); returns its new tag. */
  putPlacement(id: string, document: PlacementDocument, expect: Expect): Promise<string>;
  archivePlacement(id: string, ifMatch: string): Promise<string>;
  /** Runs `steps` so that a failure leaves the target as it was where the target allows it (a database does; HTTP does not). */
  atomically<T>(steps: () => Promise<T>): Promise<T>;
  /** Whether atomically() rolls back on failure. */
  readonly transactional: boolean;
}

/** A write the target refused, with the target's error code (precondition_failed, product_in_use, …). */
export class TargetError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'TargetError';
  }
}
