/**
 * `starts_phase` of a revision (GET /api/paywalls/{id}/revisions/{n})
 * through the real server: it says beforehand what the
 * publish then does, for every kind of split change (weights, a holdout, the
 * control, an audience's condition or weights, an audience added) and for a
 * text change, which keeps the phase.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Json } from '../helpers/json.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const PAYWALL = 'split';

const BASE: Json = {
  name: 'Split',
  default_locale: 'en',
  strings: { en: { title: 'Go Pro' } },
  root: { type: 'text', props: { text_key: 'title' } },
  variants: [
    { id: 'control', weight: 50 },
    { id: 'treatment', weight: 50 },
  ],
  audiences: [{ id: 'de', when: { country: 'DE' }, weights: { control: 1, treatment: 3 } }],
};

/** Each change to the document live before it, and whether it changes the split. */
const CHANGES: [what: string, change: (doc: Json) => Json, starts: boolean][] = [
  ['a text change', (doc) => ({ ...doc, strings: { en: { title: 'Go Pro now' } } }), false],
  ['the weights', (doc) => ({ ...doc, variants: [{ id: 'control', weight: 90 }, doc.variants[1]] }), true],
  ['a holdout (same weights)', (doc) => ({ ...doc, variants: [doc.variants[0], { ...doc.variants[1], holdout: true }] }), true],
  ['the control (same weights)', (doc) => ({ ...doc, variants: [doc.variants[0], { ...doc.variants[1], control: true }] }), true],
  ["an audience's condition", (doc) => ({ ...doc, audiences: [{ ...doc.audiences[0], when: { country: 'AT' } }] }), true],
  ["an audience's weights", (doc) => ({ ...doc, audiences: [{ ...doc.audiences[0], weights: { control: 1, treatment: 1 } }] }), true],
  ['an audience added', (doc) => ({ ...doc, audiences: [...doc.audiences, { id: 'fr', when: { country: 'FR' }, weights: { control: 1 } }] }), true],
  ['the name and a string', (doc) => ({ ...doc, name: 'Split again', strings: { en: { title: 'Last call' } } }), false],
];

test('each revision says whether publishing it starts a phase, and the publish does what it said', async (t) => {
  const { url, keys } = await startTestServer(t);
  const call = async (path: string, init: RequestInit = {}): Promise<Json> => {
    const response = await fetch(`${url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(keys.secret) } });
    assert.ok(response.status === 200 || response.status === 201, `${path}: ${response.status} ${await response.clone().text()}`);
    return response.json();
  };
  const put = (doc: Json) => call(`/api/paywalls/${PAYWALL}`, { method: 'PUT', body: JSON.stringify(doc) });
  const detail = (revision: number) => call(`/api/paywalls/${PAYWALL}/revisions/${revision}`);
  const publish = async (revision: number) => (await call(`/api/paywalls/${PAYWALL}/publish`, { method: 'POST', body: JSON.stringify({ revision }) })).phase;

  // Before any publish, the first one starts phase 1.
  await put(BASE);
  assert.equal((await detail(1)).starts_phase, true);
  assert.equal((await publish(1)).started, true);
  assert.equal((await detail(1)).starts_phase, false, 'the live revision keeps its own phase');

  let live = BASE;
  let revision = 1;
  let phase = 1;
  for (const [what, change, starts] of CHANGES) {
    const next = change(live);
    await put(next);
    revision++;
    assert.equal((await detail(revision)).starts_phase, starts, `${what}: the revision`);
    const published = await publish(revision);
    assert.equal(published.started, starts, `${what}: the publish`);
    if (starts) phase++;
    assert.equal(published.number, phase, what);
    live = next;
  }

  // A rollback: of every revision, only the live one and the one before it (same split, another text) keep the phase.
  const keeps: number[] = [];
  for (let n = 1; n <= revision; n++) if (!(await detail(n)).starts_phase) keeps.push(n);
  assert.deepEqual(keeps, [revision - 1, revision]);
  assert.equal((await publish(1)).started, true);
});
