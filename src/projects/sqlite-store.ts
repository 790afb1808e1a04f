import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import { newId } from '../ids.ts';
import type { Change } from '../shared/change.ts';
import { type ProjectRow, toProject } from './row.ts';
import { type CreatedProject, type Project, type ProjectStore, projectCreated, requireProjectName } from './store.ts';

/** What a new project needs of the keys: its two keys, inserted in the project's transaction (the SQLite key store on the same connection). */
interface KeyInserts {
  insert(projectId: string, scope: 'sdk' | 'secret'): { key: string };
}

export class SqliteProjectStore implements ProjectStore {
  private readonly createWithKeys;
  readonly list;
  readonly get;
  readonly isEmpty;

  /** `keys`: the key store on the same connection, whose inserts join the project's transaction. */
  constructor(db: Database, keys: KeyInserts, changes: SqliteChangeLog) {
    const insert = db.prepare('INSERT INTO projects (id, name, created_at, seq) VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM projects))');
    const all = db.prepare<[], ProjectRow>('SELECT id, name, created_at FROM projects ORDER BY seq');
    const byId = db.prepare<[string], ProjectRow>('SELECT id, name, created_at FROM projects WHERE id = ?');
    const count = db.prepare<[], number>('SELECT count(*) FROM projects').pluck();
    this.createWithKeys = sqliteWrite(db, (name: string, change: Change): CreatedProject => {
      const id = newId('prj');
      insert.run(id, name, Date.now());
      changes.record(change, projectCreated({ id, name }));
      return { project: { id, name }, keys: { sdk: keys.insert(id, 'sdk').key, secret: keys.insert(id, 'secret').key } };
    });
    this.list = sqliteRead(db, (): Project[] => all.all().map(toProject));
    this.get = sqliteRead(db, (id: string): Project | undefined => {
      const row = byId.get(id);
      return row && toProject(row);
    });
    this.isEmpty = sqliteRead(db, (): boolean => count.get() === 0);
  }

  async create(name: string, change: Change): Promise<CreatedProject> {
    requireProjectName(name);
    return this.createWithKeys(name, change);
  }
}
