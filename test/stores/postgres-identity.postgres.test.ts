/**
 * Catching up with event users on PostgreSQL, which has no users dictionary:
 * the store reads the events themselves in seq order, from where its last
 * call stopped, the newest included (event inserts commit in seq order).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPool } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { appAccountToken } from '../../src/identity/app-account-token.ts';
import { openPostgresStorage } from '../../src/storage/postgres.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

test('catching up hashes the users of events once, in seq order, the newest included, and goes on where it stopped', needs(POSTGRES), async (t) => {
  const sql = openPool((await postgresDatabase(t)).url);
  await migratePostgres(sql);
  const storage = openPostgresStorage(sql);
  t.after(() => storage.close());
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  const now = Date.now();
  const event = (projectId: string, userId: string | null, receivedAt: number) =>
    sql`INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, user_id)
        VALUES (${projectId}, 'pw', 'screen_impression', ${receivedAt}, ${receivedAt}, ${receivedAt}, ${userId})`;
  await event(project.id, 'ann', now - 600_000);
  await event(project.id, null, now - 600_000);
  await event(other.id, 'olga', now - 600_000);
  await event(project.id, 'ben', now - 300_000);
  await event(project.id, 'cat', now - 1_000);
  const userOf = (projectId: string, userId: string) => storage.identity.userOfAppAccountToken(projectId, appAccountToken(userId));

  assert.equal(await storage.identity.catchUpWithEventUsers(project.id), false, 'one page holds them all');
  assert.equal(await userOf(project.id, 'ann'), 'ann');
  assert.equal(await userOf(project.id, 'ben'), 'ben');
  assert.equal(await userOf(project.id, 'cat'), 'cat', 'received a second ago');
  assert.equal(await userOf(project.id, 'olga'), undefined, "another project's user");

  // A later event is read from where the last call stopped.
  await event(project.id, 'dan', now);
  assert.equal(await storage.identity.catchUpWithEventUsers(project.id), false);
  assert.equal(await userOf(project.id, 'dan'), 'dan');
  const [progress] = await sql<{ ordinal: number; last: number }[]>`
    SELECT ordinal, (SELECT max(seq) FROM events WHERE project_id = ${project.id}) AS last FROM user_token_progress WHERE project_id = ${project.id}`;
  assert.equal(progress!.ordinal, progress!.last + 1);
  assert.equal(await storage.identity.catchUpWithEventUsers(other.id), false);
  assert.equal(await userOf(other.id, 'olga'), 'olga');
});
