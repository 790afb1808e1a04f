import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import { newId } from '../ids.ts';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import { generateKey, type Scope } from './key.ts';
import { type CreatedKey, KEY_COLUMNS, KEY_TABLES, type KeyRow, type KeyStore, keyCreated, keyRevoked, MAX_ACTIVE_KEYS } from './store.ts';

/** API keys in PostgreSQL (store.ts says what each method does). */
export class PostgresKeyStore implements KeyStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  /** Writes a new key in `tx`, which may be another store's transaction (a new project's keys, whose entry covers them). */
  async insert(tx: Transaction, projectId: string, scope: Scope, name = ''): Promise<CreatedKey> {
    const key = generateKey(scope);
    const id = newId('key');
    await tx`INSERT INTO api_keys (id, project_id, scope, prefix, hash, name, created_at)
              VALUES (${id}, ${projectId}, ${scope}, ${key.prefix}, ${key.hash}, ${name}, ${Date.now()})`;
    return { id, key: key.plain, scope, prefix: key.prefix };
  }

  create(projectId: string, scope: Scope, name: string, change: Change): Promise<CreatedKey> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // The project's row lock orders concurrent creations, so that the count below stays true until the insert commits.
        await tx`SELECT 1 FROM projects WHERE id = ${projectId} FOR UPDATE`;
        const [row] = await tx<{ active: number }[]>`SELECT count(*) AS active FROM api_keys WHERE project_id = ${projectId} AND revoked_at IS NULL`;
        if (row!.active >= MAX_ACTIVE_KEYS) {
          throw new DomainError('too_many_keys', `a project may hold at most ${MAX_ACTIVE_KEYS} active keys: revoke one first`);
        }
        const created = await this.insert(tx, projectId, scope, name);
        await this.changes.record(tx, change, keyCreated(projectId, created, name));
        return created;
      }),
    );
  }

  list(projectId: string): Promise<KeyRow[]> {
    return storeCall(async () => [
      ...(await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM ${this.sql.unsafe(KEY_TABLES)} WHERE project_id = ${projectId} ORDER BY seq`),
    ]);
  }

  revoke(id: string, projectId: string | undefined, change: Change): Promise<KeyRow> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const byId = async () => (await tx<KeyRow[]>`SELECT ${tx.unsafe(KEY_COLUMNS)} FROM ${tx.unsafe(KEY_TABLES)} WHERE id = ${id}`)[0];
        await tx`SELECT 1 FROM api_keys WHERE id = ${id} FOR UPDATE`;
        const row = await byId();
        // Another project's key is reported exactly like a missing one.
        if (!row || (projectId !== undefined && row.project_id !== projectId)) throw new DomainError('key_not_found', 'no API key with that id');
        if (row.revoked_at !== null) return row;
        await tx`UPDATE api_keys SET revoked_at = ${Date.now()} WHERE id = ${id}`;
        const revoked = (await byId())!;
        await this.changes.record(tx, change, keyRevoked(revoked));
        return revoked;
      }),
    );
  }

  allActive(): Promise<KeyRow[]> {
    return storeCall(async () => [
      ...(await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM ${this.sql.unsafe(KEY_TABLES)} WHERE revoked_at IS NULL`),
    ]);
  }

  touch(id: string, at: number): Promise<void> {
    return storeCall(async () => {
      await this.sql`INSERT INTO api_key_usage (key_id, last_used_at) VALUES (${id}, ${at})
                     ON CONFLICT (key_id) DO UPDATE SET last_used_at = excluded.last_used_at WHERE api_key_usage.last_used_at < excluded.last_used_at`;
    });
  }
}
