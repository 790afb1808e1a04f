import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import { newId } from '../ids.ts';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import { generateKey, type Scope } from './key.ts';
import { type CreatedKey, KEY_COLUMNS, KEY_TABLES, type KeyRow, type KeyStore, keyCreated, keyRevoked, MAX_ACTIVE_KEYS } from './store.ts';

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
  readonly touch;

  constructor(db: Database, changes: SqliteChangeLog) {
    this.insertRow = db.prepare(`INSERT INTO api_keys (id, project_id, scope, prefix, hash, name, created_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM api_keys))`);
    this.byProject = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${KEY_TABLES} WHERE project_id = ? ORDER BY seq`);
    this.byId = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${KEY_TABLES} WHERE id = ?`);
    this.revokeRow = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.active = db.prepare<[], KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${KEY_TABLES} WHERE revoked_at IS NULL`);
    this.activeInProject = db.prepare<[string], number>('SELECT count(*) FROM api_keys WHERE project_id = ? AND revoked_at IS NULL').pluck();
    const used = db.prepare(
      `INSERT INTO api_key_usage (key_id, last_used_at) VALUES (?, ?)
       ON CONFLICT (key_id) DO UPDATE SET last_used_at = excluded.last_used_at WHERE last_used_at < excluded.last_used_at`,
    );
    this.create = sqliteWrite(db, (projectId: string, scope: Scope, name: string, change: Change): CreatedKey => {
      if (this.activeInProject.get(projectId)! >= MAX_ACTIVE_KEYS) {
        throw new DomainError('too_many_keys', `a project may hold at most ${MAX_ACTIVE_KEYS} active keys: revoke one first`);
      }
      const created = this.insert(projectId, scope, name);
      changes.record(change, keyCreated(projectId, created, name));
      return created;
    });
    this.list = sqliteRead(db, (projectId: string): KeyRow[] => this.byProject.all(projectId));
    this.revoke = sqliteWrite(db, (id: string, projectId: string | undefined, change: Change): KeyRow => {
      const row = this.byId.get(id);
      if (!row || (projectId !== undefined && row.project_id !== projectId)) throw notFound();
      if (this.revokeRow.run(Date.now(), id).changes === 0) return row;
      const revoked = this.byId.get(id)!;
      changes.record(change, keyRevoked(revoked));
      return revoked;
    });
    this.allActive = sqliteRead(db, (): KeyRow[] => this.active.all());
    this.touch = sqliteWrite(db, (id: string, at: number): void => {
      used.run(id, at);
    });
  }

  /** Inserts a key inside the caller's transaction (a new project's, SqliteProjectStore, whose entry covers it). */
  insert(projectId: string, scope: Scope, name = ''): CreatedKey {
    const key = generateKey(scope);
    const id = newId('key');
    this.insertRow.run(id, projectId, scope, key.prefix, key.hash, name, Date.now());
    return { id, key: key.plain, scope, prefix: key.prefix };
  }
}
