import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIST, runCli, spawnServe } from '../helpers/cli.ts';
import { ciServer, EXAMPLE, exampleCopy, writeJson } from '../helpers/config-dir.ts';
import { CURL, needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';

const GUIDE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/guide/paywalls-as-code.md');

test('serve --db :memory: --seed examples/config --keys-file resolves at once', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const keysFile = /its keys are in (\S+)\./.exec(server.output())![1]!;
  assert.equal(fs.statSync(keysFile).mode & 0o777, 0o600);
  assert.doesNotMatch(server.output(), /pwk_/, 'the keys are not printed');

  const sdk = { authorization: `Bearer ${server.keys.sdk}` };
  const resolved = await fetch(`${server.url}/api/sdk/config?paywallId=onboarding&userId=u-1&platform=ios&country=US`, { headers: sdk });
  assert.equal(resolved.status, 200);
  const body = await resolved.json();
  assert.equal(body.variant.audience, 'us_ios');
  assert.equal(body.product_slots[0].store_product_id, 'com.acme.pro.monthly');
  // paywalld.json lists only onboarding as live: winback is seeded as a draft.
  assert.equal((await fetch(`${server.url}/api/sdk/config?paywallId=winback`, { headers: sdk })).status, 404);
  assert.match(server.output(), /"msg":"seeded".*"steps":5,"live":1/);
});

test('events sent in CI mode are stored, counted and exported', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const ts = Date.UTC(2026, 0, 10);
  const sent = await fetch(`${server.url}/api/sdk/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.keys.sdk}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'onboarding', ts, id: 'e-1', user_id: 'u-1' }] }),
  });
  assert.deepEqual(await sent.json(), { accepted: 1, duplicates: 0, rejected: [] });
  const secret = { authorization: `Bearer ${server.keys.secret}` };
  const stats = await (await fetch(`${server.url}/api/paywalls/onboarding/stats?from=2026-01-01&to=2026-01-31`, { headers: secret })).json();
  const impressions = stats.variants.reduce((sum: number, v: any) => sum + v.totals.counts.screen_impression, 0);
  assert.equal(impressions, 1);
  const exported = await (await fetch(`${server.url}/api/events?paywallId=onboarding&from=2026-01-01&to=2026-01-31`, { headers: secret })).text();
  assert.match(exported, /"id":"e-1"/);
});

test('the temporary database is deleted when the server stops', async (t) => {
  const server = await spawnServe(t, ['--db', ':memory:', '--request-log-rate', '0']);
  const file = /"msg":"database migrated","db":"([^"]+)"/.exec(server.output())![1]!;
  assert.match(file, /paywalld-memory-[^/]+\/paywalld\.db$/);
  assert.ok(fs.existsSync(file));
  assert.match(server.output(), /"msg":"listening".*"db":":memory:"/);
  assert.equal(await server.stop(), 0);
  assert.equal(fs.existsSync(path.dirname(file)), false);
});

test('an invalid seed stops the start with its problems, and leaves no keys file behind', async (t) => {
  const dir = exampleCopy(t);
  writeJson(path.join(dir, 'paywalld.json'), { live: ['nope'] });
  const keysFile = path.join(tempDir(t), 'keys.json');
  const result = await runCli(['serve', '--db', ':memory:', '--port', '0', '--seed', dir, '--keys-file', keysFile]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /--seed .* is not valid:\npaywalld\.json:\/live\/0: No paywall file paywalls\/nope\.json/);
  assert.equal(fs.existsSync(keysFile), false);
});

test('--keys-file is written by the start that creates the project only: a restart with the same flags leaves it alone', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'paywalld.db');
  const keysFile = path.join(dir, 'keys.json');
  const first = await spawnServe(t, ['--db', db, '--keys-file', keysFile]);
  assert.doesNotMatch(first.output(), /pwk_/);
  assert.equal(await first.stop(), 0);
  const written = fs.readFileSync(keysFile, 'utf8');
  // A service restarting with --keys-file in its unit, and an operator who removed the file once the keys were stored.
  const second = await spawnServe(t, ['--db', db, '--keys-file', keysFile]);
  assert.match(second.output(), /"msg":"keys file not written: the database has a project already/);
  assert.equal(await second.stop(), 0);
  assert.equal(fs.readFileSync(keysFile, 'utf8'), written);
  fs.rmSync(keysFile);
  const third = await spawnServe(t, ['--db', db, '--keys-file', keysFile]);
  assert.equal(await third.stop(), 0);
  assert.equal(fs.existsSync(keysFile), false);
});

test('--seed on a database with one project applies to it, and a restart with the same seed changes nothing', async (t) => {
  const db = path.join(tempDir(t), 'paywalld.db');
  const first = await spawnServe(t, ['--db', db, '--seed', EXAMPLE, '--request-log-rate', '0']);
  assert.match(first.output(), /"msg":"seeded".*"steps":5/);
  assert.equal(await first.stop(), 0);
  const second = await spawnServe(t, ['--db', db, '--seed', EXAMPLE, '--request-log-rate', '0']);
  assert.match(second.output(), /"msg":"seeded".*"steps":0/);
  assert.equal(await second.stop(), 0);
});

test('the CI recipe of docs/guide/paywalls-as-code.md runs as written: start, wait for /readyz, run the tests, stop', needs(CURL), (t) => {
  const text = fs.readFileSync(GUIDE, 'utf8');
  const block = /<!-- ci-recipe -->\n```sh norun\n([\s\S]*?)```/.exec(text);
  assert.ok(block, 'docs/guide/paywalls-as-code.md has a ci-recipe block');
  const dir = tempDir(t);
  fs.cpSync(EXAMPLE, path.join(dir, 'examples/config'), { recursive: true });
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  // `paywalld` as installed: one process, so the recipe's $! is the server itself.
  fs.writeFileSync(path.join(bin, 'paywalld'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(DIST)} "$@"\n`, { mode: 0o755 });
  // The app's tests: resolve the seeded paywall with the key from keys.json.
  const appTests =
    'npm() { curl -fsS "$PAYWALLD_URL/api/sdk/config?paywallId=onboarding&userId=ci" -H "Authorization: Bearer $PAYWALLD_SDK_KEY" > resolved.json; }';
  const script = `set -euo pipefail\n${appTests}\n${block[1]}`;
  const free = spawnSync(process.execPath, ['-e', 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})'], {
    encoding: 'utf8',
  });
  const result = spawnSync('bash', ['-c', script], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`, PAYWALLD_PORT: free.stdout.trim() },
    timeout: 60_000,
  });
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  // Its own line: what the job prints next does not run on after it.
  assert.match(result.stdout, /\{"status":"ready"\}\n/);
  assert.match(result.stdout, /"msg":"stopped"/);
  const resolved = JSON.parse(fs.readFileSync(path.join(dir, 'resolved.json'), 'utf8'));
  assert.equal(resolved.paywall_id, 'onboarding');
  assert.equal(fs.statSync(path.join(dir, 'keys.json')).mode & 0o777, 0o600);
});
