import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { newId } from '../ids.ts';
import type { Change } from '../shared/change.ts';
import { type ProjectRow, toProject } from './row.ts';
import { type CreatedProject, type Project, type ProjectStore, projectCreated, requireProjectName } from './store.ts';

/** What a new project needs of the keys feature: its two keys, written in the project's transaction (the key store). */
interface KeyIssuer {
  insert(tx: Transaction, projectId: string, scope: 'sdk' | 'secret'): Promise<{ key: string }>;
}

/** Projects in PostgreSQL (store.ts says what each method does). */
export class PostgresProjectStore implements ProjectStore {
  constructor(
    private readonly sql: Sql,
    private readonly keys: KeyIssuer,
    private readonly changes: PostgresChangeLog,
  ) {}

  async create(name: string, change: Change): Promise<CreatedProject> {
    requireProjectName(name);
    return await storeCall(() =>
      this.sql.begin(async (tx) => {
        const id = newId('prj');
        await tx`INSERT INTO projects (id, name, created_at) VALUES (${id}, ${name}, ${Date.now()})`;
        const sdk = await this.keys.insert(tx, id, 'sdk');
        const secret = await this.keys.insert(tx, id, 'secret');
        await this.changes.record(tx, change, projectCreated({ id, name }));
        return { project: { id, name }, keys: { sdk: sdk.key, secret: secret.key } };
      }),
    );
  }

  list(): Promise<Project[]> {
    return storeCall(async () => (await this.sql<ProjectRow[]>`SELECT id, name, created_at FROM projects ORDER BY seq`).map(toProject));
  }

  get(id: string): Promise<Project | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<ProjectRow[]>`SELECT id, name, created_at FROM projects WHERE id = ${id}`;
      return row && toProject(row);
    });
  }

  isEmpty(): Promise<boolean> {
    return storeCall(async () => {
      const [row] = await this.sql<{ empty: boolean }[]>`SELECT NOT EXISTS (SELECT 1 FROM projects) AS empty`;
      return row!.empty;
    });
  }
}
