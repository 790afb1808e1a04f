import { DomainError } from '../shared/errors.ts';
import type { Scope } from './key.ts';
import type { KeyRegistry } from './registry.ts';
import type { SqliteKeyStore as KeyStore } from './sqlite-store.ts';
import { type CreatedKey, type KeyInfo, keyInfo } from './store.ts';

/**
 * What a project may do with its API keys. Every change is applied to the
 * in-memory registry, so a new key works and a revoked one stops at once,
 * without reading every key of every project again.
 */
export class KeyService {
  constructor(
    private readonly store: KeyStore,
    private readonly registry: KeyRegistry,
  ) {}

  list(projectId: string): KeyInfo[] {
    return this.store.list(projectId).map(keyInfo);
  }

  create(projectId: string, scope: Scope): CreatedKey {
    const created = this.store.createLimited(projectId, scope);
    this.registry.add(created.key, { projectId, keyId: created.id, scope });
    return created;
  }

  revoke(projectId: string, id: string): KeyInfo {
    const existing = this.store.get(id);
    // Another project's key is reported exactly like a missing one.
    if (!existing || existing.project_id !== projectId) throw new DomainError('key_not_found', 'no API key with that id');
    const revoked = this.store.revokeKey(existing.id);
    this.registry.remove(revoked.hash);
    return keyInfo(revoked);
  }
}
