/**
 * A connector looks a user up by text from the notification (Stripe's customer and subscription ids,
 * an App Store appAccountToken) before it stores anything: text no database can hold (NUL, a lone
 * surrogate) is 400 invalid_notification before any lookup, on SQLite as on PostgreSQL (which would
 * fail the statement), as when the text would be stored.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { configured, deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { problem } from '../helpers/problem.ts';
import { needs } from '../helpers/requirements.ts';
import { startTestServer } from '../helpers/server.ts';

const SECRET = 'whsec_lookups_0123456789abcdef';

function signed(body: string): Record<string, string> {
  const t = Math.floor(Date.now() / 1000);
  return { 'stripe-signature': `t=${t},v1=${crypto.createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}` };
}

const invoice = (id: string, customer: string, subscription: string, metadata: Record<string, string> = {}) =>
  JSON.stringify({
    id,
    object: 'event',
    type: 'invoice.paid',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `in_${id}`,
        object: 'invoice',
        customer,
        billing_reason: 'subscription_cycle',
        amount_paid: 999,
        currency: 'usd',
        metadata,
        parent: { type: 'subscription_details', subscription_details: { subscription, metadata: {} } },
      },
    },
  });

const BACKENDS = [
  { name: 'sqlite', requires: { skip: false as const }, db: async () => undefined },
  { name: 'postgres', requires: needs(POSTGRES), db: async (t: TestContext) => (await postgresDatabase(t)).url },
];

for (const backend of BACKENDS) {
  test(
    `${backend.name}: a customer or subscription id holding NUL or a lone surrogate is 400 invalid_notification before any lookup`,
    backend.requires,
    async (t) => {
      const dbPath = await backend.db(t);
      // In a subtest, so that the server stops before the database is dropped.
      await t.test('through one server', (st) => refusedBeforeLookup(st, dbPath));
    },
  );
}

async function refusedBeforeLookup(t: TestContext, dbPath: string | undefined): Promise<void> {
  const server = await startTestServer(t, dbPath === undefined ? {} : { dbPath });
  await configured(server.url, server.keys.secret, 'stripe', { signing_secret: SECRET });
  const send = (body: string) => deliver(server.url, 'stripe', server.projectId, body, signed(body));
  const cases = [
    // No user in the metadata: the customer is looked up.
    invoice('evt_1', 'cus_\u0000', 'sub_1'),
    invoice('evt_2', 'cus_\ud800', 'sub_1'),
    // A user in the metadata: the subscription's earlier records are looked up to type the payment.
    invoice('evt_3', 'cus_1', 'sub_\u0000', { paywalld_user_id: 'alice' }),
  ];
  for (const body of cases) {
    const refused = await problem(await send(body), 400, 'invalid_notification');
    assert.match(refused.detail, /NUL \(U\+0000\) or a lone surrogate/);
  }
  assert.equal(await metric(server.url, server.keys.secret, 'paywalld_store_notifications_total{provider="stripe",outcome="invalid"}'), 3);
  assert.deepEqual(await server.server.ctx.purchases.list(server.projectId), []);
  // The same notifications with usable ids go through: the refusal was the text, nothing else.
  assert.equal((await send(invoice('evt_4', 'cus_1', 'sub_1', { paywalld_user_id: 'alice' }))).status, 200);
  assert.equal((await server.server.ctx.purchases.list(server.projectId)).length, 1);
}
