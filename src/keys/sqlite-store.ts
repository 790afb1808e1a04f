import type { Database } from '../db/database.ts';
import { newId } from '../ids.ts';
import { DomainError } from '../shared/errors.ts';
import { generateKey, type Scope } from './key.ts';

import { type CreatedKey, type KeyRow, MAX_ACTIVE_KEYS } from './store.ts';

export class SqliteKeyStore {
  private readonly insert;
  private readonly byProject;
  private readonly byId;
  private readonly revoke;
  private readonly active;
  private readonly activeInProject;
  private readonly createUnderLimit;

  constructor(db: Database) {
    this.insert = db.prepare('INSERT INTO api_keys (id, project_id, scope, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.byProject = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id');
    this.byId = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?');
    this.revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.active = db.prepare<[], KeyRow>('SELECT * FROM api_keys WHERE revoked_at IS NULL');
    this.activeInProject = db.prepare<[string], number>('SELECT count(*) FROM api_keys WHERE project_id = ? AND revoked_at IS NULL').pluck();
    this.createUnderLimit = db.transaction((projectId: string, scope: Scope): CreatedKey => {
      if (this.activeInProject.get(projectId)! >= MAX_ACTIVE_KEYS) {
        throw new DomainError('too_many_keys', `a project may hold at most ${MAX_ACTIVE_KEYS} active keys: revoke one first`);
      }
      return this.create(projectId, scope);
    });
  }

  /** Creates a key; the plain key is returned once and exists nowhere else afterwards. */
  create(projectId: string, scope: Scope): CreatedKey {
    const key = generateKey(scope);
    const id = newId('key');
    this.insert.run(id, projectId, scope, key.prefix, key.hash, Date.now());
    return { id, key: key.plain, scope, prefix: key.prefix };
  }

  /** Creates a key unless the project already holds MAX_ACTIVE_KEYS active ones (too_many_keys), in one transaction. */
  createLimited(projectId: string, scope: Scope): CreatedKey {
    return this.createUnderLimit(projectId, scope);
  }

  list(projectId: string): KeyRow[] {
    return this.byProject.all(projectId);
  }

  get(id: string): KeyRow | undefined {
    return this.byId.get(id);
  }

  /** Revokes a key; revoking an already revoked key is not an error (idempotent). */
  revokeKey(id: string): KeyRow {
    const row = this.byId.get(id);
    if (!row) throw new DomainError('key_not_found', 'no API key with that id');
    this.revoke.run(Date.now(), id);
    return this.byId.get(id)!;
  }

  allActive(): KeyRow[] {
    return this.active.all();
  }
}
