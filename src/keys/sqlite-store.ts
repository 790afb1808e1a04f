import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import { newId } from '../ids.ts';
import { DomainError } from '../shared/errors.ts';
import { generateKey, type Scope } from './key.ts';
import { type CreatedKey, KEY_COLUMNS, type KeyRow, type KeyStore, MAX_ACTIVE_KEYS } from './store.ts';

function notFound(): DomainError {
  return new DomainError('key_not_found', 'no API key with that id');
}

export class SqliteKeyStore implements KeyStore {
  private readonly insertRow;
  private readonly byProject;
  private readonly byId;
  private readonly revokeRow;
  private readonly active;
  private readonly activeInProject;
  readonly create;
  readonly list;
  readonly revoke;
  readonly allActive;

  constructor(db: Database) {
    this.insertRow = db.prepare(`INSERT INTO api_keys (id, project_id, scope, prefix, hash, created_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM api_keys))`);
    this.byProject = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = ? ORDER BY seq`);
    this.byId = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`);
    this.revokeRow = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.active = db.prepare<[], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE revoked_at IS NULL`);
    this.activeInProject = db.prepare<[string], number>('SELECT count(*) FROM api_keys WHERE project_id = ? AND revoked_at IS NULL').pluck();
    this.create = sqliteWrite(db, (projectId: string, scope: Scope): CreatedKey => {
      if (this.activeInProject.get(projectId)! >= MAX_ACTIVE_KEYS) {
        throw new DomainError('too_many_keys', `a project may hold at most ${MAX_ACTIVE_KEYS} active keys: revoke one first`);
      }
      return this.insert(projectId, scope);
    });
    this.list = sqliteRead(db, (projectId: string): KeyRow[] => this.byProject.all(projectId));
    this.revoke = sqliteWrite(db, (id: string, projectId: string | undefined): KeyRow => {
      const row = this.byId.get(id);
      if (!row || (projectId !== undefined && row.project_id !== projectId)) throw notFound();
      this.revokeRow.run(Date.now(), id);
      return this.byId.get(id)!;
    });
    this.allActive = sqliteRead(db, (): KeyRow[] => this.active.all());
  }

  /** Inserts a key inside the caller's transaction (a new project's, SqliteProjectStore). */
  insert(projectId: string, scope: Scope): CreatedKey {
    const key = generateKey(scope);
    const id = newId('key');
    this.insertRow.run(id, projectId, scope, key.prefix, key.hash, Date.now());
    return { id, key: key.plain, scope, prefix: key.prefix };
  }
}
