import type { Logger } from '../log.ts';
import type { Actor } from '../shared/change.ts';
import { ViewUpdates } from '../shared/view-updates.ts';
import { hashKey, KEY_PREFIX, RANDOM_LENGTH, type Scope } from './key.ts';
import { type KeyStore, USAGE_RESOLUTION_MS } from './store.ts';

/** Who a request acts for, once its key is known. */
interface Principal {
  projectId: string;
  scope: Scope;
  actor: Actor;
}

/** A key as the registry learns it: from the store, or just created. */
interface KnownKey {
  projectId: string;
  id: string;
  scope: Scope;
  prefix: string;
}

function principalOf(key: KnownKey): Principal {
  return { projectId: key.projectId, scope: key.scope, actor: { type: 'key', id: key.id, label: `${key.prefix}…` } };
}

/** Bound on remembered plain keys, so a flood of distinct valid keys cannot grow memory without limit. */
const VERIFIED_LIMIT = 10_000;

/**
 * The in-memory view of every active key, so authentication runs no SQL.
 * Keys are indexed by hash; a key seen once is also remembered by its plain
 * text (in memory only) so repeated requests skip the SHA-256, which costs a
 * visible share of a resolve request. This process's own creations and
 * revocations are applied one key at a time (add, remove); reload() rebuilds
 * both maps from the store, at start and for changes other processes
 * committed, while lookups go on with the previous maps.
 */
export class KeyRegistry {
  /** No key is longer, so the edge refuses a longer token without looking it up. */
  readonly maxTokenLength = Math.max(...Object.values(KEY_PREFIX).map((prefix) => prefix.length)) + RANDOM_LENGTH;

  private byHash = new Map<string, Principal>();
  private verified = new Map<string, Principal>();
  private readonly updates = new ViewUpdates();
  /** When this process last recorded each key's use (api_key_usage), so that it writes at most once a minute per key. */
  private readonly recorded = new Map<string, number>();
  /** Full rebuilds since start (a /metrics counter): only start-up and other processes' changes cause one. */
  reloads = 0;

  constructor(
    private readonly store: KeyStore,
    private readonly log?: Logger,
  ) {}

  /** Loads every active key; the previous maps serve until it is done, and stay when it fails. */
  reload(): Promise<void> {
    return this.updates.reload(async () => {
      const byHash = new Map<string, Principal>();
      for (const row of await this.store.allActive()) {
        byHash.set(row.hash, principalOf({ projectId: row.project_id, id: row.id, scope: row.scope, prefix: row.prefix }));
      }
      this.byHash = byHash;
      this.verified = new Map();
      this.reloads++;
    });
  }

  /** A key this process just created. */
  add(plain: string, key: KnownKey): Promise<void> {
    return this.updates.run(() => {
      this.byHash.set(hashKey(plain), principalOf(key));
    });
  }

  /** A key this process just revoked: gone from both maps, so its next request is refused. */
  remove(hash: string): Promise<void> {
    return this.updates.run(() => {
      const principal = this.byHash.get(hash);
      if (!principal) return;
      this.byHash.delete(hash);
      for (const [token, known] of this.verified) if (known === principal) this.verified.delete(token);
    });
  }

  /** How many active keys are in memory (a /metrics gauge). */
  size(): number {
    return this.byHash.size;
  }

  lookup(token: string): Principal | undefined {
    let principal = this.verified.get(token);
    if (!principal) {
      principal = this.byHash.get(hashKey(token));
      if (!principal) return undefined;
      if (this.verified.size >= VERIFIED_LIMIT) this.verified.clear();
      this.verified.set(token, principal);
    }
    this.used(principal.actor.id);
    return principal;
  }

  /**
   * Records a key's use (its `last_used_at`) after the request's lookup, off
   * its path: at most once a minute per key and process, written when the
   * event loop is free. A failed write is logged; the next minute tries again.
   */
  private used(keyId: string): void {
    const now = Date.now();
    if (now - (this.recorded.get(keyId) ?? 0) < USAGE_RESOLUTION_MS) return;
    if (this.recorded.size >= VERIFIED_LIMIT) this.recorded.clear();
    this.recorded.set(keyId, now);
    setImmediate(() => {
      this.store.touch(keyId, now).catch((error: unknown) => {
        this.log?.warn("a key's last use was not recorded", { key_id: keyId, error: error instanceof Error ? error.message : String(error) });
      });
    });
  }
}
