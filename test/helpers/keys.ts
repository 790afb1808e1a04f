import path from 'node:path';
import type { TestContext } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { KeyRegistry } from '../../src/keys/registry.ts';
import { SqliteKeyStore as KeyStore } from '../../src/keys/sqlite-store.ts';
import { SqliteProjectStore as ProjectStore } from '../../src/projects/sqlite-store.ts';
import { tempDir } from './temp.ts';

/** The real key registry over a fresh database with one project, for tests of the bare edge. */
export function keyRegistry(t: TestContext): { auth: KeyRegistry; sdk: string; secret: string; store: KeyStore; projectId: string } {
  const db = openDatabase(path.join(tempDir(t), 'keys.db'));
  t.after(() => db.close());
  migrate(db);
  const store = new KeyStore(db);
  const { project, keys } = new ProjectStore(db, store).create('edge');
  return { auth: new KeyRegistry(store), sdk: keys.sdk, secret: keys.secret, store, projectId: project.id };
}
