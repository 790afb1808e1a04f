/**
 * The placements management API through a real server: a write is a
 * revision served at once, If-Match and If-None-Match hold, every refusal
 * has its code and pointer, warnings name what is most likely a mistake,
 * archiving stops serving and a write brings the placement back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { example } from '../helpers/example-paywall.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

const winback = {
  name: 'Win back',
  rules: [
    { audience: { 'purchases.lapsed_days': { $gte: 7 } }, paywall_id: 'offer', holdout_percent: 10, frequency: { limit: 1, per: 'day' } },
    { paywall_id: 'offer' },
  ],
  default: 'none',
};

test('a placement is created, read, written at the ETag read, listed with its revisions, archived and brought back', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  await client.putPaywall('offer', example());
  await client.publish('offer');

  const created = await client.request('PUT', '/api/placements/lapsed', { body: winback, headers: { 'if-none-match': '*' } });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('location'), '/api/placements/lapsed');
  const tag = created.headers.get('etag')!;
  const body = await created.json();
  assert.deepEqual([body.id, body.name, body.status, body.revision, body.warnings], ['lapsed', 'Win back', 'active', 1, []]);

  const read = await client.request('GET', '/api/placements/lapsed');
  assert.equal(read.headers.get('etag'), tag);
  assert.deepEqual((await read.json()).document, winback);
  assert.equal((await client.request('GET', '/api/placements/lapsed', { headers: { 'if-none-match': tag } })).status, 304);

  await problem(await client.request('PUT', '/api/placements/lapsed', { body: winback, headers: { 'if-none-match': '*' } }), 412, 'precondition_failed');
  const second = await client.request('PUT', '/api/placements/lapsed', { body: { ...winback, name: 'Win back 2' }, headers: { 'if-match': tag } });
  assert.equal(second.status, 200);
  assert.equal((await second.json()).revision, 2);
  await problem(await client.request('PUT', '/api/placements/lapsed', { body: winback, headers: { 'if-match': tag } }), 412, 'precondition_failed');

  const list = await (await client.request('GET', '/api/placements')).json();
  assert.deepEqual(
    list.placements.map((p: any) => [p.id, p.revision, p.status]),
    [['lapsed', 2, 'active']],
  );
  const revisions = await (await client.request('GET', '/api/placements/lapsed/revisions')).json();
  assert.deepEqual(
    revisions.revisions.map((r: any) => [r.revision, r.name, r.created_by.type]),
    [
      [2, 'Win back 2', 'key'],
      [1, 'Win back', 'key'],
    ],
  );
  const first = await (await client.request('GET', '/api/placements/lapsed/revisions/1')).json();
  assert.deepEqual(first.document, winback);
  await problem(await client.request('GET', '/api/placements/lapsed/revisions/9'), 404, 'revision_not_found');
  await problem(await client.request('GET', '/api/placements/nope'), 404, 'placement_not_found');
  await problem(await client.request('GET', '/api/placements/nope/revisions'), 404, 'placement_not_found');
  await problem(await client.request('DELETE', '/api/placements/nope'), 404, 'placement_not_found');

  const current = (await client.request('GET', '/api/placements/lapsed')).headers.get('etag')!;
  await problem(await client.request('DELETE', '/api/placements/lapsed', { headers: { 'if-match': tag } }), 412, 'precondition_failed');
  const archived = await client.request('DELETE', '/api/placements/lapsed', { headers: { 'if-match': current } });
  assert.equal(archived.status, 200);
  assert.equal((await archived.json()).status, 'archived');
  const back = await client.request('PUT', '/api/placements/lapsed', { body: winback });
  assert.deepEqual(await back.json().then((b: any) => [b.status, b.revision]), ['active', 3]);
});

test('every refusal of a placement document has its code and pointer, and nothing is stored', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const refused = async (body: unknown, path: string, id = 'p') => {
    const answer = await problem(await client.request('PUT', `/api/placements/${id}`, { body }), 422, 'validation_failed');
    assert.ok(
      answer.errors.some((error: any) => error.path === path),
      `${path} in ${JSON.stringify(answer.errors)}`,
    );
  };
  await refused({ rules: [] }, '/name');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', holdout_percent: 51 }] }, '/rules/0/holdout_percent');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', holdout_percent: 0.001 }] }, '/rules/0/holdout_percent');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', frequency: { limit: 0, per: 'day' } }] }, '/rules/0/frequency/limit');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', frequency: { limit: 101, per: 'day' } }] }, '/rules/0/frequency/limit');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', frequency: { limit: 1, per: 'month' } }] }, '/rules/0/frequency/per');
  await refused({ name: 'P', rules: [{ paywall_id: '-x' }] }, '/rules/0/paywall_id');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', extra: 1 }] }, '/rules/0/extra');
  await refused({ name: 'P', rules: [], default: '../x' }, '/default');
  await refused({ name: 'P', rules: [{ paywall_id: 'x', audience: { country: { $bogus: 1 } } }] }, '/rules/0/audience/country/$bogus');
  await refused(
    { name: 'P', rules: [{ paywall_id: 'x', audience: { $or: [{ 'purchases.is_subscribed': true }] } }] },
    '/rules/0/audience/$or/0/purchases.is_subscribed',
  );
  await refused({ name: 'P', rules: Array.from({ length: 101 }, () => ({ paywall_id: 'x' })) }, '/rules');
  await problem(await client.request('PUT', '/api/placements/-bad', { body: { name: 'P', rules: [] } }), 422, 'invalid_id');
  assert.deepEqual((await (await client.request('GET', '/api/placements')).json()).placements, []);
});

test('a write warns of a rule naming a paywall that is not live and of a rule no user reaches, and is stored anyway', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  const written = await client.request('PUT', '/api/placements/p', {
    body: { name: 'P', rules: [{ paywall_id: 'draft' }, { paywall_id: 'later', audience: { country: 'DE' } }], default: 'gone' },
  });
  assert.equal(written.status, 201);
  const { warnings } = await written.json();
  assert.deepEqual(
    warnings.map((w: any) => [w.path, w.code]),
    [
      ['/rules/0/paywall_id', 'paywall_not_live'],
      ['/rules/1/paywall_id', 'paywall_not_live'],
      ['/rules/1', 'unreachable_rule'],
      ['/default', 'paywall_not_live'],
    ],
  );
});
