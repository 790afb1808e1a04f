import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { watchConfigChanges } from '../../src/db/watch.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { tempDir } from '../helpers/temp.ts';

test('commits of other connections reach the watcher only when they change configuration, whatever the server wrote itself', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const file = path.join(tempDir(t), 'watch.db');
  const server = openDatabase(file);
  const other = openDatabase(file);
  t.after(() => {
    server.close();
    other.close();
  });
  migrate(server);
  let changes = 0;
  const stop = watchConfigChanges(server, 10, () => changes++);
  t.after(stop);

  // Event-like writes (here: a table of no configuration) move data_version but not the generation.
  other.exec('CREATE TABLE scratch (x); INSERT INTO scratch VALUES (1), (2)');
  t.mock.timers.tick(10);
  assert.equal(changes, 0);

  const elsewhere = openSqliteStorage(other);
  const created = await elsewhere.projects.create('from another process', TEST_CHANGE);
  t.mock.timers.tick(10);
  assert.equal(changes, 1);
  t.mock.timers.tick(10);
  assert.equal(changes, 1);

  await elsewhere.keys.revoke((await elsewhere.keys.list(created.project.id))[0]!.id, undefined, TEST_CHANGE);
  other.exec('INSERT INTO scratch VALUES (3)');
  t.mock.timers.tick(10);
  assert.equal(changes, 2);

  // The server's own writes are announced by the code making them, never by the watch,
  // not even when the event writer's connection commits after them.
  await openSqliteStorage(server).projects.create('from this process', TEST_CHANGE);
  t.mock.timers.tick(10);
  assert.equal(changes, 2);
  other.exec('INSERT INTO scratch VALUES (4)');
  t.mock.timers.tick(10);
  assert.equal(changes, 2, "an event commit after the server's own change is no configuration change");

  // Another process's change and the server's own in one tick, in either order: the other's counts.
  const own = openSqliteStorage(server);
  await elsewhere.projects.create('theirs first', TEST_CHANGE);
  await own.projects.create('then ours', TEST_CHANGE);
  t.mock.timers.tick(10);
  assert.equal(changes, 3);
  await own.projects.create('ours first', TEST_CHANGE);
  await elsewhere.projects.create('then theirs', TEST_CHANGE);
  t.mock.timers.tick(10);
  assert.equal(changes, 4);
  t.mock.timers.tick(10);
  assert.equal(changes, 4);
});
