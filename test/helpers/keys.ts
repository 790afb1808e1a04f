import path from 'node:path';
import type { TestContext } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { KeyRegistry } from '../../src/keys/registry.ts';
import type { KeyStore } from '../../src/keys/store.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { TEST_CHANGE } from './change.ts';
import { tempDir } from './temp.ts';

/** The real key registry over a fresh database with one project, for tests of the bare edge. */
export async function keyRegistry(t: TestContext): Promise<{ auth: KeyRegistry; sdk: string; secret: string; store: KeyStore; projectId: string }> {
  const db = openDatabase(path.join(tempDir(t), 'keys.db'));
  migrate(db);
  const storage = openSqliteStorage(db);
  t.after(() => storage.close());
  const { project, keys } = await storage.projects.create('edge', TEST_CHANGE);
  const auth = new KeyRegistry(storage.keys);
  await auth.reload();
  return { auth, sdk: keys.sdk, secret: keys.secret, store: storage.keys, projectId: project.id };
}
