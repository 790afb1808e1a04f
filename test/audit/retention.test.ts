/** `--audit-retention-days N`: entries older than N days are deleted at start (and daily); without it nothing ever is. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestSql } from '../helpers/database.ts';
import { serverOn, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const DAY = 24 * 3600_000;

test('audit entries older than the retention are pruned when the server starts; newer ones, and all without the setting, stay', async (t) => {
  const first = await startTestServer(t);
  const sql = openTestSql(t, first.dbPath);
  const insert = (id: string, daysAgo: number) =>
    sql.run(
      `INSERT INTO audit_log (id, at, project_id, actor_type, actor_id, actor_label, action, target_type, target_id, summary)
       VALUES (?, ?, ?, 'cli', 'test', 'the test', 'product.written', 'product', 'p', 'an entry of the test')`,
      id,
      Date.now() - daysAgo * DAY,
      first.projectId,
    );
  await insert('aud_old', 40);
  await insert('aud_recent', 20);
  const count = async (id: string) => Number(await sql.value('SELECT count(*) FROM audit_log WHERE id = ?', id));
  await first.server.stop();

  const kept = await serverOn(t, first.dbPath);
  assert.equal(await count('aud_old'), 1, 'without the setting, nothing is pruned');
  await kept.server.stop();

  await serverOn(t, first.dbPath, { auditRetentionDays: 30 });
  await until(async () => (await count('aud_old')) === 0, 'the old entry pruned');
  assert.equal(await count('aud_recent'), 1);
  assert.equal(Number(await sql.value("SELECT count(*) FROM audit_log WHERE action = 'project.created'")), 1);
});
