import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { newId } from '../ids.ts';
import { DomainError } from '../shared/errors.ts';
import { generateKey, type Scope } from './key.ts';
import { type CreatedKey, KEY_COLUMNS, type KeyRow, type KeyStore, MAX_ACTIVE_KEYS } from './store.ts';

/** API keys in PostgreSQL (store.ts says what each method does). */
export class PostgresKeyStore implements KeyStore {
  constructor(private readonly sql: Sql) {}

  /** Writes a new key in `tx`, which may be another store's transaction (a new project's keys). */
  async insert(tx: Transaction, projectId: string, scope: Scope): Promise<CreatedKey> {
    const key = generateKey(scope);
    const id = newId('key');
    await tx`INSERT INTO api_keys (id, project_id, scope, prefix, hash, created_at)
              VALUES (${id}, ${projectId}, ${scope}, ${key.prefix}, ${key.hash}, ${Date.now()})`;
    return { id, key: key.plain, scope, prefix: key.prefix };
  }

  create(projectId: string, scope: Scope): Promise<CreatedKey> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // The project's row lock orders concurrent creations, so that the count below stays true until the insert commits.
        await tx`SELECT 1 FROM projects WHERE id = ${projectId} FOR UPDATE`;
        const [row] = await tx<{ active: number }[]>`SELECT count(*) AS active FROM api_keys WHERE project_id = ${projectId} AND revoked_at IS NULL`;
        if (row!.active >= MAX_ACTIVE_KEYS) {
          throw new DomainError('too_many_keys', `a project may hold at most ${MAX_ACTIVE_KEYS} active keys: revoke one first`);
        }
        return await this.insert(tx, projectId, scope);
      }),
    );
  }

  list(projectId: string): Promise<KeyRow[]> {
    return storeCall(async () => [
      ...(await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE project_id = ${projectId} ORDER BY seq`),
    ]);
  }

  revoke(id: string, projectId: string | undefined): Promise<KeyRow> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const [row] = await tx<KeyRow[]>`SELECT ${tx.unsafe(KEY_COLUMNS)} FROM api_keys WHERE id = ${id} FOR UPDATE`;
        // Another project's key is reported exactly like a missing one.
        if (!row || (projectId !== undefined && row.project_id !== projectId)) throw new DomainError('key_not_found', 'no API key with that id');
        if (row.revoked_at !== null) return row;
        const [revoked] = await tx<KeyRow[]>`UPDATE api_keys SET revoked_at = ${Date.now()} WHERE id = ${id} RETURNING ${tx.unsafe(KEY_COLUMNS)}`;
        return revoked!;
      }),
    );
  }

  allActive(): Promise<KeyRow[]> {
    return storeCall(async () => [...(await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys WHERE revoked_at IS NULL`)]);
  }
}
