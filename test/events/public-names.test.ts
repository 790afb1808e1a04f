/**
 * Names sent without a secret key (docs/reference/events.md, "Names and their
 * limits"): the review's anonymous lockout, 1,000 junk variant ids for a
 * live paywall and 999 junk event types, keyless, no longer refuses the
 * team's own new variant and event type, before or after a restart; names a
 * paywall declares and documented types are always taken; an owner sees what
 * filled the budget and clears it (API and CLI).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { JSON_TYPE, sendEvents } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { bearer, restartServer, startTestServer } from '../helpers/server.ts';

async function send(url: string, key: string | undefined, events: Json[]): Promise<{ accepted: number; rejected: Json[] }> {
  let accepted = 0;
  const rejected: Json[] = [];
  for (let from = 0; from < events.length; from += 1000) {
    const response = await sendEvents(url, { events: events.slice(from, from + 1000) }, key === undefined ? JSON_TYPE : { ...JSON_TYPE, ...bearer(key) });
    const result = (await response.json()) as Json;
    assert.equal(response.status, 200, JSON.stringify(result));
    accepted += result.accepted;
    for (const r of result.rejected) rejected.push({ ...r, index: r.index + from });
  }
  return { accepted, rejected };
}

/** Writes and publishes the paywall with these variants (even weights). */
async function publish(url: string, secret: string, variants: string[]): Promise<void> {
  const document = {
    name: 'Names',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: variants.map((id) => ({ id, weight: 1 })),
  };
  const put = await fetch(`${url}/api/paywalls/pw`, { method: 'PUT', headers: { ...JSON_TYPE, ...bearer(secret) }, body: JSON.stringify(document) });
  assert.ok(put.status === 200 || put.status === 201, await put.text());
  assert.equal((await fetch(`${url}/api/paywalls/pw/publish`, { method: 'POST', headers: bearer(secret) })).status, 200);
}

const ts = Date.now();
const event = (type: string, extra: Json = {}) => ({ type, paywall_id: 'pw', ts, ...extra });

test("an anonymous flood of junk variants and event types leaves the team's new variant and event type accepted, across a restart", async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t);
  await publish(url, keys.secret, ['control', 'treatment']);

  // The review's attack, keyless.
  const variants = await send(
    url,
    undefined,
    Array.from({ length: 1000 }, (_, i) => event('screen_impression', { user_id: `j${i}`, variant_id: `junk${i}` })),
  );
  assert.equal(variants.accepted, 100, 'a day of undeclared variants for one paywall');
  assert.deepEqual([...new Set(variants.rejected.map((r) => r.code))], ['too_many_variants']);
  assert.match(variants.rejected[0]!.message, /without a secret key/);
  const types = await send(
    url,
    undefined,
    Array.from({ length: 999 }, (_, i) => event(`junk_${i}`)),
  );
  assert.equal(types.accepted, 100, 'a day of undeclared event types');
  assert.deepEqual([...new Set(types.rejected.map((r) => r.code))], ['too_many_event_types']);

  // Documented types and what the paywall declares are always taken, keyless.
  assert.equal((await send(url, undefined, [event('restore_start'), event('screen_impression', { user_id: 'u1', variant_id: 'treatment' })])).accepted, 2);
  // The team's new variant: declared by the revision it publishes, taken from the app at once.
  await publish(url, keys.secret, ['control', 'treatment', 'annual']);
  assert.equal((await send(url, undefined, [event('screen_impression', { user_id: 'u2', variant_id: 'annual' })])).accepted, 1);
  assert.equal((await send(url, keys.sdk, [event('screen_impression', { user_id: 'u3', variant_id: 'annual' })])).accepted, 1);
  // The team's new event type, sent with the secret key: the junk did not use up its room.
  assert.equal((await send(url, keys.secret, [event('team_signup')])).accepted, 1);

  await server.stop();
  const again = await restartServer(t, dbPath);
  // The budget is remembered: more junk is refused, the team's next variant and type are taken.
  assert.equal((await send(again, undefined, [event('screen_impression', { user_id: 'j', variant_id: 'junk_after' }), event('junk_after')])).accepted, 0);
  await publish(again, keys.secret, ['control', 'treatment', 'annual', 'weekly']);
  assert.equal((await send(again, undefined, [event('screen_impression', { user_id: 'u4', variant_id: 'weekly' })])).accepted, 1);
  assert.equal((await send(again, keys.secret, [event('team_checkout')])).accepted, 1);
  // A new type from the app (sdk key) waits for the day's budget, or for an owner to clear it.
  const waiting = await send(again, keys.sdk, [event('app_opened')]);
  assert.deepEqual(
    waiting.rejected.map((r) => r.code),
    ['too_many_event_types'],
  );
});

test('an owner sees what filled the budget of names sent without a secret key and clears it, through the API and the CLI', async (t) => {
  const { url, keys, dbPath, projectId } = await startTestServer(t);
  await publish(url, keys.secret, ['control']);
  await send(
    url,
    undefined,
    Array.from({ length: 150 }, (_, i) => event('screen_impression', { user_id: `j${i}`, variant_id: `junk${i}` })),
  );
  await send(
    url,
    keys.sdk,
    Array.from({ length: 120 }, (_, i) => event(`junk_${i}`)),
  );
  assert.equal((await send(url, keys.sdk, [event('app_opened')])).accepted, 0);

  const listed = (await (await fetch(`${url}/api/event-names`, { headers: bearer(keys.secret) })).json()) as Json;
  assert.equal(listed.window_hours, 24);
  assert.deepEqual(listed.budgets.map((b: Json) => [b.kind, b.paywall_id, b.counting, b.limit]).sort(), [
    ['event_type', null, 100, 100],
    ['variant', null, 100, 1000],
    ['variant', 'pw', 100, 100],
  ]);
  assert.equal(listed.total, 200);
  assert.ok(listed.names.some((n: Json) => n.kind === 'variant' && n.paywall_id === 'pw' && n.name === 'junk0' && n.counting === true));
  assert.ok(!listed.names.some((n: Json) => n.name === 'control' || n.name === 'screen_impression'), 'declared names are not public names');

  // The CLI lists the same, and clears: the app's new type is taken at once; the statistics keep the junk.
  const shown = await runCli(['event-names', 'list', '--project', projectId, '--db', dbPath]);
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, /event_type: 100 of 100 a day/);
  const cleared = await runCli(['event-names', 'clear', '--project', projectId, '--json', '--db', dbPath]);
  assert.equal(cleared.status, 0, cleared.stderr);
  assert.deepEqual(JSON.parse(cleared.stdout), { cleared: 200 });
  assert.equal((await send(url, keys.sdk, [event('app_opened')])).accepted, 1);
  const after = (await (await fetch(`${url}/api/event-names`, { headers: bearer(keys.secret) })).json()) as Json;
  assert.deepEqual(
    after.budgets.map((b: Json) => [b.kind, b.counting]),
    [['event_type', 1]],
  );
  // Through the API too.
  const deleted = await fetch(`${url}/api/event-names`, { method: 'DELETE', headers: bearer(keys.secret) });
  assert.deepEqual(await deleted.json(), { cleared: 1 });
  const stats = (await (await fetch(`${url}/api/paywalls/pw/stats`, { headers: bearer(keys.secret) })).json()) as Json;
  assert.equal(stats.variants.length, 101);
});
