import { hashKey, KEY_PREFIX, RANDOM_LENGTH, type Scope } from './key.ts';
import type { KeyStore } from './store.ts';

/** Who a request acts for, once its key is known. */
export interface Principal {
  projectId: string;
  keyId: string;
  scope: Scope;
}

/** Bound on remembered plain keys, so a flood of distinct valid keys cannot grow memory without limit. */
const VERIFIED_LIMIT = 10_000;

/**
 * The in-memory view of every active key, so authentication runs no SQL.
 * Keys are indexed by hash; a key seen once is also remembered by its plain
 * text (in memory only) so repeated requests skip the SHA-256, which costs a
 * visible share of a resolve request. reload() rebuilds both maps, so a
 * revoked key stops working at the next reload.
 */
export class KeyRegistry {
  /** No key is longer, so the edge refuses a longer token without looking it up. */
  readonly maxTokenLength = Math.max(...Object.values(KEY_PREFIX).map((prefix) => prefix.length)) + RANDOM_LENGTH;

  private byHash = new Map<string, Principal>();
  private verified = new Map<string, Principal>();

  constructor(private readonly store: KeyStore) {
    this.reload();
  }

  reload(): void {
    const byHash = new Map<string, Principal>();
    for (const row of this.store.allActive()) {
      byHash.set(row.hash, { projectId: row.project_id, keyId: row.id, scope: row.scope });
    }
    this.byHash = byHash;
    this.verified = new Map();
  }

  lookup(token: string): Principal | undefined {
    const known = this.verified.get(token);
    if (known) return known;
    const principal = this.byHash.get(hashKey(token));
    if (principal) {
      if (this.verified.size >= VERIFIED_LIMIT) this.verified.clear();
      this.verified.set(token, principal);
    }
    return principal;
  }
}
