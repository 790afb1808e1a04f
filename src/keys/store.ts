/**
 * API keys, stored as hashes. The interface every backend implements
 * (sqlite-store.ts; CONTRIBUTING.md, "The storage seam"): each method is
 * one transaction.
 */
import type { Change, ChangeEntry } from '../shared/change.ts';
import type { Scope } from './key.ts';

/** Active keys a project may hold: far more than any app's rotations need, few enough that listing them stays small. */
export const MAX_ACTIVE_KEYS = 1000;

export interface KeyRow {
  id: string;
  project_id: string;
  scope: Scope;
  prefix: string;
  hash: string;
  /** What the key is for, as its creator said; '' when they did not. */
  name: string;
  created_at: number;
  revoked_at: number | null;
  /** The last request it authenticated, to the minute (api_key_usage); null when never used. */
  last_used_at: number | null;
}

/**
 * The columns of a KeyRow: what the stores select from api_keys joined with
 * api_key_usage (the table's creation sequence, `seq`, only orders their lists).
 */
export const KEY_COLUMNS = 'id, project_id, scope, prefix, hash, name, created_at, revoked_at, last_used_at';
export const KEY_TABLES = 'api_keys LEFT JOIN api_key_usage ON key_id = id';

/** How often a key's last use is written at most: a key in constant use costs one write a minute. */
export const USAGE_RESOLUTION_MS = 60_000;

/** What listings show: everything but the hash. */
export interface KeyInfo {
  id: string;
  project_id: string;
  scope: Scope;
  prefix: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  scope: Scope;
  prefix: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function keyInfo(row: KeyRow): KeyInfo {
  return {
    id: row.id,
    project_id: row.project_id,
    scope: row.scope,
    prefix: row.prefix,
    name: row.name,
    created_at: iso(row.created_at)!,
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

export function keyCreated(projectId: string, created: CreatedKey, name: string): ChangeEntry {
  const summary = `created ${created.scope} key ${created.prefix}…${name === '' ? '' : ` (${name})`}`;
  return { project: projectId, action: 'key.created', target: { type: 'key', id: created.id }, summary };
}

export function keyRevoked(row: KeyRow): ChangeEntry {
  const summary = `revoked ${row.scope} key ${row.prefix}…${row.name === '' ? '' : ` (${row.name})`}`;
  return { project: row.project_id, action: 'key.revoked', target: { type: 'key', id: row.id }, summary };
}

export interface KeyStore {
  /**
   * Creates a key unless the project already holds MAX_ACTIVE_KEYS active
   * ones (too_many_keys), count and insert in one transaction with its audit
   * entry (`change`: who). The plain key is returned once and exists nowhere
   * else afterwards.
   */
  create(projectId: string, scope: Scope, name: string, change: Change): Promise<CreatedKey>;
  /** The project's keys, revoked ones included, oldest first (in creation order, even within one millisecond). */
  list(projectId: string): Promise<KeyRow[]>;
  /**
   * Revokes a key and returns it; revoking a revoked key is not an error.
   * key_not_found for an unknown id, and, when `projectId` is given, for
   * another project's key (reported exactly like a missing one). The
   * revocation's audit entry is written with it (none for a key revoked already).
   */
  revoke(id: string, projectId: string | undefined, change: Change): Promise<KeyRow>;
  /** Every active key of every project: what the in-memory registry loads. */
  allActive(): Promise<KeyRow[]>;
  /** Records that a key was used at `at`, unless a later use is recorded already. Not a change of configuration: no audit entry. */
  touch(id: string, at: number): Promise<void>;
}
