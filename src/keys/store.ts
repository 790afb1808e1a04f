/**
 * API keys, stored as hashes. The interface every backend implements
 * (sqlite-store.ts; CONTRIBUTING.md, "The storage seam"): each method is
 * one transaction.
 */
import type { Scope } from './key.ts';

/** Active keys a project may hold: far more than any app's rotations need, few enough that listing them stays small. */
export const MAX_ACTIVE_KEYS = 1000;

export interface KeyRow {
  id: string;
  project_id: string;
  scope: Scope;
  prefix: string;
  hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** The columns of a KeyRow: what the stores select (the table's creation sequence, `seq`, only orders their lists). */
export const KEY_COLUMNS = 'id, project_id, scope, prefix, hash, created_at, revoked_at';

/** What listings show: everything but the hash. */
export interface KeyInfo {
  id: string;
  project_id: string;
  scope: Scope;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  scope: Scope;
  prefix: string;
}

export function keyInfo(row: KeyRow): KeyInfo {
  return {
    id: row.id,
    project_id: row.project_id,
    scope: row.scope,
    prefix: row.prefix,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}

export interface KeyStore {
  /**
   * Creates a key unless the project already holds MAX_ACTIVE_KEYS active
   * ones (too_many_keys), count and insert in one transaction. The plain key
   * is returned once and exists nowhere else afterwards.
   */
  create(projectId: string, scope: Scope): Promise<CreatedKey>;
  /** The project's keys, revoked ones included, oldest first (in creation order, even within one millisecond). */
  list(projectId: string): Promise<KeyRow[]>;
  /**
   * Revokes a key and returns it; revoking a revoked key is not an error.
   * key_not_found for an unknown id, and, when `projectId` is given, for
   * another project's key (reported exactly like a missing one).
   */
  revoke(id: string, projectId: string | undefined): Promise<KeyRow>;
  /** Every active key of every project: what the in-memory registry loads. */
  allActive(): Promise<KeyRow[]>;
}
