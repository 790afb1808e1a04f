/**
 * The typed client's getPlacement, the bundle apps get (dist/client)
 * against a real server: the paywall or why not; the events it tracks for
 * that paywall carry the placement; a rule's cap counted on the device at
 * once (a session cap, which only it counts); a holdout's exposure sent
 * for the results; and offline, the placement decided from the fallback
 * bundle (`paywalld fallback` and GET /api/sdk/fallback), stopping at a
 * rule on purchases.*.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { fileStorage, loadClient } from '../helpers/client.ts';
import { exported } from '../helpers/events.ts';
import { livePaywalls, placementAnswer, putPlacement } from '../helpers/placements.ts';
import { startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

/** The URL of a port nothing listens on. */
function closedPortUrl(): Promise<string> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(`http://127.0.0.1:${port}`));
    });
  });
}

test('getPlacement shows the paywall, tags its events with the placement, and counts a session cap on the device', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer', 'other']);
  await putPlacement(server, 'exit', { name: 'Exit', rules: [{ paywall_id: 'offer', frequency: { limit: 1, per: 'session' } }] });
  const { createClient } = await loadClient();
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, userId: 'ann', storage: fileStorage(path.join(tempDir(t), 'state.json')) });
  const first = await client.getPlacement('exit');
  assert.ok(first.show);
  assert.deepEqual([first.source, first.rule, first.paywall.paywall_id], ['network', 0, 'offer']);
  const opened = client.track({ type: 'screen_impression', paywall_id: 'offer' });
  assert.equal(opened.placement, 'exit');
  assert.equal(client.track({ type: 'purchase_complete', paywall_id: 'offer', revenue: 4.99, currency: 'USD' }).placement, 'exit');
  // The server shows it again (it counts no session); the device does not.
  assert.equal((await placementAnswer(server, { placement: 'exit', userId: 'ann' })).show, true);
  const second = await client.getPlacement('exit');
  assert.deepEqual([second.show, !second.show && second.reason], [false, 'frequency_cap']);
  // A paywall shown by getPaywall is not the placement's: its events carry none.
  await client.getPaywall('other');
  assert.equal(client.track({ type: 'screen_impression', paywall_id: 'other' }).placement, undefined);
  await client.flush();
  const events = await exported(server.url, server.keys.secret, { from: '0' });
  assert.deepEqual(
    events.map((event) => [event.type, event.paywall_id, event.placement]),
    [
      ['screen_impression', 'offer', 'exit'],
      ['purchase_complete', 'offer', 'exit'],
      ['screen_impression', 'other', null],
    ],
  );
  await client.close();
});

test('a holdout answer sends the placement_holdout exposure the results count', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer']);
  await putPlacement(server, 'exit', { name: 'Exit', rules: [{ paywall_id: 'offer', holdout_percent: 50 }] });
  let held = '';
  for (let i = 0; held === ''; i++) if (!(await placementAnswer(server, { placement: 'exit', userId: `u${i}` })).show) held = `u${i}`;
  const { createClient } = await loadClient();
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, userId: held });
  const answer = await client.getPlacement('exit');
  assert.deepEqual([answer.show, !answer.show && answer.reason], [false, 'holdout']);
  await client.flush();
  const events = await exported(server.url, server.keys.secret, { from: '0' });
  assert.deepEqual(
    events.map((event) => [event.type, event.paywall_id, event.user_id, event.placement]),
    [['placement_holdout', 'offer', held, 'exit']],
  );
  await until(async () => {
    const results = await (await fetch(`${server.url}/api/placements/exit/results`, { headers: { authorization: `Bearer ${server.keys.secret}` } })).json();
    return results.variants?.find((v: { variant_id: string }) => v.variant_id === 'held_out')?.exposed_users === 1;
  }, 'the held out user in the results');
  await client.close();
});

test('offline, the placement is decided from the fallback bundle: rule order, holdout, and nothing past a purchases.* rule', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['german', 'offer', 'winback']);
  await putPlacement(server, 'home', {
    name: 'Home',
    rules: [
      { audience: { country: 'DE' }, paywall_id: 'german' },
      { audience: { 'attr.plan': 'free' }, paywall_id: 'offer', holdout_percent: 50 },
    ],
    default: 'none',
  });
  await putPlacement(server, 'lapsed', { name: 'Lapsed', rules: [{ audience: { 'purchases.lapsed_days': { $gte: 7 } }, paywall_id: 'winback' }] });
  const file = path.join(tempDir(t), 'bundle.json');
  const written = await runCli(['fallback', '--out', file, '--db', server.dbPath, '--placement', 'home', '--placement', 'lapsed']);
  assert.equal(written.status, 0, written.stderr);
  const bundle = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(bundle.paywalls.map((p: { paywall_id: string }) => p.paywall_id).sort(), ['german', 'offer', 'winback']);
  assert.deepEqual(
    bundle.placements.map((p: { placement: string; rules: { server_only: boolean }[] }) => [p.placement, p.rules.map((r) => r.server_only)]),
    [
      ['home', [false, false]],
      ['lapsed', [true]],
    ],
  );
  // GET /api/sdk/fallback answers the same placements.
  const served = await (
    await fetch(`${server.url}/api/sdk/fallback?placement=home,lapsed`, { headers: { authorization: `Bearer ${server.keys.sdk}` } })
  ).json();
  assert.deepEqual(served.placements, bundle.placements);

  const { createClient } = await loadClient();
  const offline = createClient({ baseUrl: await closedPortUrl(), apiKey: server.keys.sdk, fallback: bundle, timeoutMs: 2000 });
  const german = await offline.getPlacement('home', { userId: 'x', country: 'de' });
  assert.ok(german.show);
  assert.deepEqual([german.source, german.paywall.paywall_id, german.rule], ['fallback', 'german', 0]);
  const nothing = await offline.getPlacement('home', { userId: 'x', country: 'fr' });
  assert.deepEqual([nothing.show, !nothing.show && nothing.reason], [false, 'no_rule_matched']);
  // The holdout offline is the server's: the same users, by the same hash.
  for (let i = 0; i < 40; i++) {
    const userId = `user-${i}`;
    const online = await placementAnswer(server, { placement: 'home', userId, 'attr.plan': 'free' });
    const decided = await offline.getPlacement('home', { userId, attributes: { plan: 'free' } });
    assert.equal(decided.show, online.show, userId);
  }
  const lapsed = await offline.getPlacement('lapsed', { userId: 'x' });
  assert.deepEqual([lapsed.show, !lapsed.show && lapsed.reason], [false, 'offline']);
  await offline.close({ timeoutMs: 10 });
});

test('day, week and ever caps are counted on the device from its storage, with periods starting 00:00 UTC and Monday', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['p-daily', 'p-weekly', 'p-ever']);
  for (const per of ['daily', 'weekly', 'ever'] as const) {
    const period = { daily: 'day', weekly: 'week', ever: 'ever' }[per];
    await putPlacement(server, per, { name: per, rules: [{ paywall_id: `p-${per}`, frequency: { limit: 1, per: period } }] });
  }
  const DAY = 86_400_000;
  const today = Math.floor(Date.now() / DAY);
  const monday = today - ((today + 3) % 7); // 1970-01-01 was a Thursday
  // Opens an earlier run of the app kept: the last millisecond before today and before this week, and one long ago.
  const file = path.join(tempDir(t), 'state.json');
  fs.writeFileSync(file, JSON.stringify({ 'paywalld:placement-opens': JSON.stringify({ daily: [today * DAY - 1], weekly: [monday * DAY - 1], ever: [DAY] }) }));
  const { createClient } = await loadClient();
  // No userId: an anonymous user, whose opens the server has never been sent.
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  const daily = await client.getPlacement('daily');
  assert.equal(daily.show, true, "yesterday's open is not today's");
  assert.equal((await client.getPlacement('weekly')).show, true, "last week's open is not this week's");
  const ever = await client.getPlacement('ever');
  assert.deepEqual([ever.show, !ever.show && ever.reason], [false, 'frequency_cap'], 'an open ever counts for ever');
  client.track({ type: 'screen_impression', paywall_id: 'p-daily' });
  const again = await client.getPlacement('daily');
  assert.deepEqual([again.show, !again.show && again.reason], [false, 'frequency_cap'], "today's open counts at once");
  await client.close();
});
