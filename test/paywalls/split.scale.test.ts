/**
 * A 50/50 split through the server: 1,000 user ids in `npm test`, within
 * ±5 %; 10,000 under `npm run test:scale` (helpers/scale.ts), within ±2 %.
 * The hash's own spread over 10,000 ids is checked without a server in
 * test/paywalls/targeting.unit.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { example } from '../helpers/example-paywall.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { scaled } from '../helpers/scale.ts';
import { startTestServer } from '../helpers/server.ts';
import { assignments } from './assignments.ts';

const USERS = scaled(1_000, 10_000);
const WITHIN = scaled(0.05, 0.02);

test(`a 50/50 split over ${USERS.toLocaleString('en')} user ids lands within ±${WITHIN * 100} %`, async (t) => {
  const client = api(await startTestServer(t));
  await seedProducts(client);
  const doc = example();
  doc.audiences = [];
  await client.putPaywall('onboarding', doc);
  await client.publish('onboarding');
  const users = Array.from({ length: USERS }, (_, i) => `user-${i}`);
  const variants = await assignments(client.url, client.sdk, 'onboarding', users);
  const control = variants.filter((id) => id === 'control').length;
  assert.equal(variants.filter((id) => id === 'annual_first').length, USERS - control);
  assert.ok(Math.abs(control - USERS / 2) <= USERS * WITHIN, `control got ${control} of ${USERS}`);
});
