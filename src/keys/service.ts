import type { Change } from '../shared/change.ts';
import type { Scope } from './key.ts';
import type { KeyRegistry } from './registry.ts';
import { type CreatedKey, type KeyInfo, type KeyStore, keyInfo } from './store.ts';

/**
 * What a project may do with its API keys. Every change is applied to the
 * in-memory registry before it is answered, so a new key works and a
 * revoked one stops at once, without reading every key of every project again.
 */
export class KeyService {
  constructor(
    private readonly store: KeyStore,
    private readonly registry: KeyRegistry,
  ) {}

  async list(projectId: string): Promise<KeyInfo[]> {
    return (await this.store.list(projectId)).map(keyInfo);
  }

  async create(projectId: string, scope: Scope, name: string, change: Change): Promise<CreatedKey> {
    const created = await this.store.create(projectId, scope, name, change);
    await this.registry.add(created.key, { projectId, id: created.id, scope, prefix: created.prefix });
    return created;
  }

  async revoke(projectId: string, id: string, change: Change): Promise<KeyInfo> {
    const revoked = await this.store.revoke(id, projectId, change);
    await this.registry.remove(revoked.hash);
    return keyInfo(revoked);
  }
}
