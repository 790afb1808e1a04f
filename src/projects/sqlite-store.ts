import type { Database } from '../db/database.ts';
import { newId } from '../ids.ts';
import type { CreatedProject, Project } from './store.ts';

interface ProjectRow {
  id: string;
  name: string;
  created_at: number;
}

/** What a new project needs of the keys feature: its two keys, written in the project's transaction (the key store). */
interface KeyIssuer {
  create(projectId: string, scope: 'sdk' | 'secret'): { key: string };
}

const NAME = /^\S(.{0,98}\S)?$/u;

function validProjectName(name: string): boolean {
  return NAME.test(name);
}

function toProject(row: ProjectRow): Project {
  return { id: row.id, name: row.name, created_at: new Date(row.created_at).toISOString() };
}

export class SqliteProjectStore {
  private readonly insert;
  private readonly all;
  private readonly byId;
  private readonly count;
  private readonly createWithKeys;

  constructor(
    db: Database,
    private readonly keys: KeyIssuer,
  ) {
    this.insert = db.prepare('INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)');
    this.all = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY created_at, id');
    this.byId = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE id = ?');
    this.count = db.prepare('SELECT count(*) FROM projects').pluck();
    // A project is never left without its two keys: both are written in one transaction.
    this.createWithKeys = db.transaction((name: string): CreatedProject => {
      const id = newId('prj');
      this.insert.run(id, name, Date.now());
      return {
        project: { id, name },
        keys: { sdk: this.keys.create(id, 'sdk').key, secret: this.keys.create(id, 'secret').key },
      };
    });
  }

  /** Creates a project with one sdk and one secret key. */
  create(name: string): CreatedProject {
    if (!validProjectName(name)) throw new Error('a project name is 1 to 100 characters and does not start or end with a space');
    return this.createWithKeys.immediate(name);
  }

  list(): Project[] {
    return this.all.all().map(toProject);
  }

  get(id: string): Project | undefined {
    const row = this.byId.get(id);
    return row && toProject(row);
  }

  isEmpty(): boolean {
    return this.count.get() === 0;
  }
}
