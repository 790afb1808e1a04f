import { DomainError } from '../shared/errors.ts';
import type { Scope } from './key.ts';
import type { KeyRegistry } from './registry.ts';
import { type CreatedKey, type KeyInfo, type KeyStore, keyInfo } from './store.ts';

/**
 * What a project may do with its API keys. Every change reloads the
 * in-memory registry, so a new key works and a revoked one stops at once.
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
    const created = this.store.create(projectId, scope);
    this.registry.reload();
    return created;
  }

  revoke(projectId: string, id: string): KeyInfo {
    const existing = this.store.get(id);
    // Another project's key is reported exactly like a missing one.
    if (!existing || existing.project_id !== projectId) throw new DomainError('key_not_found', 'no API key with that id');
    const revoked = this.store.revokeKey(existing.id);
    this.registry.reload();
    return keyInfo(revoked);
  }
}
