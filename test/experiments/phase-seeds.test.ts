/**
 * Re-randomization when a phase starts (docs/reference/experiments.md, "Phases"):
 * through the real server, a split change gives the new phase its own seed
 * (publish answer, phases list, explain=1, the variants users get), and
 * `"reseed": false` keeps users in their variants.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assignBucket, pickByWeights } from '../../src/paywalls/targeting/hash.ts';
import type { Json } from '../helpers/json.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const PAYWALL = 'seeded';

function document(control: number, treatment: number): Json {
  return {
    name: 'Seeded',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: control },
      { id: 'treatment', weight: treatment },
    ],
  };
}

test('a split change reseeds the new phase; reseed false keeps the seed; publish, phases and explain say which', async (t) => {
  const { url, keys } = await startTestServer(t);
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(keys.secret) } });
  const publish = async (control: number, treatment: number, body: Json = {}): Promise<Json> => {
    const put = await call(`/api/paywalls/${PAYWALL}`, { method: 'PUT', body: JSON.stringify(document(control, treatment)) });
    assert.ok(put.status === 200 || put.status === 201, await put.text());
    const response = await call(`/api/paywalls/${PAYWALL}/publish`, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()).phase;
  };
  const variantOf = async (userId: string): Promise<Json> => {
    const response = await call(`/api/sdk/config?${new URLSearchParams({ paywallId: PAYWALL, userId, explain: '1' })}`);
    assert.equal(response.status, 200);
    const body = await response.json();
    return { variant: body.variant.id, seed: body.explain.hash.seed };
  };
  const users = Array.from({ length: 40 }, (_, i) => `user-${i}`);
  const expected = (seed: string, weights: number[]) => users.map((u) => ['control', 'treatment'][pickByWeights(assignBucket(seed, u), weights)]);
  const served = async () => Promise.all(users.map(async (u) => (await variantOf(u)).variant));

  // The first phase hashes with the paywall's own seed: publishing moves nobody.
  assert.deepEqual(await publish(50, 50), { number: 1, started: true, seed: PAYWALL });
  assert.deepEqual(await served(), expected(PAYWALL, [50, 50]));
  assert.deepEqual(await publish(50, 50), { number: 1, started: false, seed: PAYWALL }, 'a text change keeps the phase');

  // 50/50 → 90/10: a new phase with a seed of its own, so its control is not mostly phase 1's treatment.
  assert.deepEqual(await publish(90, 10), { number: 2, started: true, seed: `${PAYWALL}#2` });
  assert.equal((await variantOf('user-0')).seed, `${PAYWALL}#2`);
  assert.deepEqual(await served(), expected(`${PAYWALL}#2`, [90, 10]));
  assert.notDeepEqual(expected(`${PAYWALL}#2`, [90, 10]), expected(PAYWALL, [90, 10]));

  // reseed false keeps the seed: users stay nested in their variants.
  assert.deepEqual(await publish(80, 20, { reseed: false }), { number: 3, started: true, seed: `${PAYWALL}#2` });
  assert.deepEqual(await served(), expected(`${PAYWALL}#2`, [80, 20]));
  // new_phase reseeds too, even when the split and the revision are the same.
  assert.deepEqual(await publish(80, 20, { new_phase: true }), { number: 4, started: true, seed: `${PAYWALL}#4` });
  assert.deepEqual(await served(), expected(`${PAYWALL}#4`, [80, 20]));

  const phases = (await (await call(`/api/paywalls/${PAYWALL}/phases`)).json()).phases;
  assert.deepEqual(
    phases.map((p: Json) => [p.number, p.seed]),
    [
      [1, PAYWALL],
      [2, `${PAYWALL}#2`],
      [3, `${PAYWALL}#2`],
      [4, `${PAYWALL}#4`],
    ],
  );
});
