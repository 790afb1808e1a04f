/**
 * Every door sends its changes' events, since the change log queues them:
 * the CLI on a running server's database (either backend) and paywalls as
 * code applied through the database reach the receiver as the API's do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { exampleCopy } from '../helpers/config-dir.ts';
import { startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { putWebhook, startReceiver, verified } from '../helpers/webhooks.ts';

test("the CLI's changes on a running server's database are delivered by that server", async (t) => {
  const server = await startTestServer(t, { webhooks: { allowPrivate: true, backoffScale: 1 } });
  const receiver = await startReceiver(t);
  const hook = await putWebhook(server, 'ops', { url: receiver.url, events: ['key.created', 'paywall.published'] });
  const created = await runCli(['keys', 'create', '--project', server.projectId, '--scope', 'sdk', '--json', '--db', server.dbPath]);
  assert.equal(created.status, 0, created.stderr);
  const applied = await runCli(['apply', exampleCopy(t), '--publish', '--db', server.dbPath]);
  assert.equal(applied.status, 0, applied.stderr);
  await until(() => receiver.received.length >= 2, 'a key created and the paywall published');
  const events = receiver.received.map((r) => `${r.event.type} ${r.event.data.key_id ?? r.event.data.paywall_id} ${r.event.data.actor.label}`).sort();
  assert.deepEqual(events, [`key.created ${JSON.parse(created.stdout).id} paywalld keys create`, 'paywall.published onboarding paywalld apply']);
  assert.ok(receiver.received.every((r) => verified(hook.body.secret, r)));
});
