import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DIST, runCli } from '../helpers/cli.ts';
import { against, ciServer, EXAMPLE, exampleCopy, management, readJson, snapshotFiles, writeJson } from '../helpers/config-dir.ts';
import { tempDir } from '../helpers/temp.ts';

test('export → apply into an empty server → export again gives identical bytes', async (t) => {
  const source = await ciServer(t, ['--seed', EXAMPLE]);
  // A draft on top of a live revision, and an archived paywall: what export has to get right.
  const changed = readJson(path.join(EXAMPLE, 'paywalls/onboarding.json'));
  changed.strings.en.title = 'Go Pro today';
  assert.equal((await management(source, 'PUT', '/api/paywalls/onboarding', changed)).status, 200);
  assert.equal((await management(source, 'PUT', '/api/paywalls/gone', readJson(path.join(EXAMPLE, 'paywalls/winback.json')))).status, 201);
  assert.equal((await management(source, 'DELETE', '/api/paywalls/gone')).status, 200);

  const first = path.join(tempDir(t), 'first');
  const exported = await against(source, ['export', first]);
  assert.equal(exported.status, 0, exported.stderr);
  assert.match(exported.stdout, /Exported 2 product\(s\) and 2 paywall\(s\) \(1 live\)/);
  assert.deepEqual(Object.keys(snapshotFiles(first)).sort(), ['paywalld.json', 'paywalls/onboarding.json', 'paywalls/winback.json', 'products.json']);
  assert.deepEqual(readJson(path.join(first, 'paywalld.json')), { live: ['onboarding'] });
  assert.equal(readJson(path.join(first, 'paywalls/onboarding.json')).strings.en.title, 'Go Pro today');
  assert.equal((await runCli(['validate', first, '--strict'])).status, 0);

  const again = path.join(tempDir(t), 'again');
  assert.equal((await against(source, ['export', again])).status, 0);
  assert.deepEqual(snapshotFiles(again), snapshotFiles(first), 'a second export of an unchanged project');

  const target = await ciServer(t);
  const applied = await against(target, ['apply', first, '--publish']);
  assert.equal(applied.status, 0, applied.stderr);
  const roundTrip = path.join(tempDir(t), 'round-trip');
  assert.equal((await against(target, ['export', roundTrip])).status, 0);
  assert.deepEqual(snapshotFiles(roundTrip), snapshotFiles(first));
});

test('plan shows changes with a diff, apply makes them, and applying twice changes nothing and says so', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const dir = exampleCopy(t);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  onboarding.strings.en.title = 'Unlock everything';
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const products = readJson(path.join(dir, 'products.json'));
  products.products[0].name = 'Pro Yearly';
  products.products.push({ id: 'pro_weekly', name: 'Pro Weekly', store_ids: { app_store: 'com.acme.pro.weekly' } });
  writeJson(path.join(dir, 'products.json'), products);

  const plan = await against(server, ['plan', dir, '--publish']);
  assert.equal(plan.status, 0, plan.stderr);
  const lines = plan.stdout.split('\n').map((line) => line.trim().replace(/\s+/g, ' '));
  for (const expected of [
    '+ create product pro_weekly',
    '~ change product pro_annual',
    'at /name:',
    '- "name": "Pro Annual",',
    '+ "name": "Pro Yearly",',
    '~ new revision of paywall onboarding',
    'at /strings/en/title:',
    '- "title": "Go Pro"',
    '+ "title": "Unlock everything"',
    '^ publish paywall onboarding (same experiment phase)',
    '= unchanged: product pro_monthly, paywall winback',
  ]) {
    assert.ok(lines.includes(expected), `${expected}\nin\n${plan.stdout}`);
  }
  // plan changed nothing.
  const before = await (await management(server, 'GET', '/api/paywalls/onboarding')).json();
  assert.equal(before.revision, 1);

  const applied = await against(server, ['apply', dir, '--publish']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /done: publish paywall onboarding/);
  assert.match(applied.stdout, /Applied 4 step\(s\)/);
  const resolved = await (
    await fetch(`${server.url}/api/sdk/config?paywallId=onboarding&userId=u`, { headers: { authorization: `Bearer ${server.keys.sdk}` } })
  ).json();
  assert.equal(resolved.revision, 2);
  assert.equal(resolved.root.children[0].props.text, 'Unlock everything');

  const twice = await against(server, ['apply', dir, '--publish']);
  assert.equal(twice.status, 0, twice.stderr);
  assert.match(twice.stdout, /^No changes: .* already matches .* \(3 products, 2 paywalls unchanged\)\.$/m);
  const after = await (await management(server, 'GET', '/api/paywalls/onboarding')).json();
  assert.equal(after.revision, 2, 'no new revision');
});

test('plan and apply --publish say which publishes start a new experiment phase, as the server then does', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const dir = exampleCopy(t);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  // A new split: the server starts phase 2. winback only changes a text: its phase goes on.
  onboarding.variants = onboarding.variants.map((variant: any, i: number) => ({ ...variant, weight: i === 0 ? 70 : 30 }));
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const winback = readJson(path.join(dir, 'paywalls/winback.json'));
  winback.name = 'Winback, renamed';
  writeJson(path.join(dir, 'paywalls/winback.json'), winback);
  writeJson(path.join(dir, 'paywalld.json'), { live: ['onboarding', 'winback'] });
  const plan = await against(server, ['plan', dir, '--publish']);
  assert.equal(plan.status, 0, plan.stderr);
  assert.match(plan.stdout, /\^ publish paywall onboarding \(starts a new experiment phase: its results start over\)/);
  assert.match(plan.stdout, /\^ publish paywall winback \((revision \d+, )?(same experiment phase|starts a new experiment phase: its results start over)\)/);
  const phases = async (id: string) => (await (await management(server, 'GET', `/api/paywalls/${id}/phases`)).json()).phases.length;
  const winbackBefore = await phases('winback');
  const applied = await against(server, ['apply', dir, '--publish']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /publish paywall onboarding \(starts a new experiment phase/);
  assert.equal(await phases('onboarding'), 2);
  // What the plan said of winback is what the server did.
  const saidNew = /publish paywall winback \((revision \d+, )?starts a new/.test(plan.stdout);
  assert.equal(await phases('winback'), winbackBefore + (saidNew ? 1 : 0));
});

test('without --publish new revisions stay drafts and the plan says how to publish them', async (t) => {
  const server = await ciServer(t);
  const config = exampleCopy(t);
  const result = await against(server, ['apply', config]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /Note: paywall onboarding is not published: its new revision goes live with apply --publish\./);
  const list = await (await management(server, 'GET', '/api/paywalls')).json();
  assert.deepEqual(
    list.paywalls.map((p: any) => p.status),
    ['draft', 'draft'],
  );
  const publish = await against(server, ['apply', config, '--publish']);
  assert.equal(publish.status, 0, publish.stderr);
  assert.match(publish.stdout, /done: publish paywall onboarding/);
  assert.doesNotMatch(publish.stdout, /winback/, 'paywalld.json does not list winback as live');
});

test('a concurrent edit makes apply of a saved plan fail with a clear message and change nothing', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const dir = exampleCopy(t);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  onboarding.strings.en.title = 'From the directory';
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const products = readJson(path.join(dir, 'products.json'));
  products.products[1].name = 'Monthly (directory)';
  writeJson(path.join(dir, 'products.json'), products);
  const planFile = path.join(tempDir(t), 'plan.json');
  const plan = await against(server, ['plan', dir, '--publish', '--out', planFile]);
  assert.equal(plan.status, 0, plan.stderr);

  // Someone edits the paywall in the dashboard after the plan was reviewed.
  const dashboard = readJson(path.join(EXAMPLE, 'paywalls/onboarding.json'));
  dashboard.strings.en.title = 'From the dashboard';
  assert.equal((await management(server, 'PUT', '/api/paywalls/onboarding', dashboard)).status, 200);
  const exportDir = path.join(tempDir(t), 'before');
  assert.equal((await against(server, ['export', exportDir])).status, 0);

  const applied = await against(server, ['apply', dir, '--plan', planFile]);
  assert.equal(applied.status, 1);
  assert.match(
    applied.stderr,
    /refused: http:\/\/127\.0\.0\.1:\d+ changed since the plan was made: paywall onboarding was changed \(ETag "\d+" then, "\d+" now\)\. Nothing was changed; run plan again and review it\./,
  );
  const exportAfter = path.join(tempDir(t), 'after');
  assert.equal((await against(server, ['export', exportAfter])).status, 0);
  assert.deepEqual(snapshotFiles(exportAfter), snapshotFiles(exportDir), 'nothing changed, not even the product');

  // A changed directory is refused as well; with nothing changed since, the saved plan applies.
  const fresh = await against(server, ['plan', dir, '--publish', '--out', planFile]);
  assert.equal(fresh.status, 0);
  products.products[1].name = 'Edited after review';
  writeJson(path.join(dir, 'products.json'), products);
  const drifted = await against(server, ['apply', dir, '--plan', planFile]);
  assert.equal(drifted.status, 1);
  assert.match(drifted.stderr, /the directory changed since the plan was made/);
  products.products[1].name = 'Monthly (directory)';
  writeJson(path.join(dir, 'products.json'), products);
  const ok = await against(server, ['apply', dir, '--plan', planFile]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /done: publish paywall onboarding/);
  const other = await against(server, ['apply', dir, '--plan', planFile, '--prune']);
  assert.equal(other.status, 2, 'options come from the plan');
  assert.match(other.stderr, /the plan was made without --prune; make a new plan to change that/);
});

/** Runs the `paywalld …` command a hint printed, exactly as printed, with `paywalld` being the bundle. */
function runHint(output: string, cwd: string, env: NodeJS.ProcessEnv) {
  const hint = /"(paywalld apply [^"]+)"/.exec(output)?.[1];
  assert.ok(hint, output);
  return spawnSync('bash', ['-c', `paywalld() { node ${JSON.stringify(DIST)} "$@"; }\n${hint}`], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
}

for (const publish of [false, true]) {
  test(`plan --out${publish ? ' --publish' : ''} prints an apply command that runs as printed, against a server and a database`, async (t) => {
    const server = await ciServer(t);
    const cwd = tempDir(t);
    fs.cpSync(EXAMPLE, path.join(cwd, 'config'), { recursive: true });
    const flags = publish ? ['--publish'] : [];
    const planned = await runCli(['plan', 'config', '--server', server.url, ...flags, '--out', 'plan1.json'], {
      cwd,
      env: { PAYWALLD_KEY: server.keys.secret },
    });
    assert.equal(planned.status, 0, planned.stderr);
    assert.match(planned.stdout, /apply it with "paywalld apply config --plan plan1\.json"/);
    assert.doesNotMatch(fs.readFileSync(path.join(cwd, 'plan1.json'), 'utf8'), /pwk_/, 'a saved plan never holds the key');
    const applied = runHint(planned.stdout, cwd, { PAYWALLD_KEY: server.keys.secret });
    assert.equal(applied.status, 0, applied.stderr);
    assert.match(applied.stdout, new RegExp(`Applied \\d+ step\\(s\\) to ${server.url.replaceAll('.', '\\.')}`));
    assert.equal(/publish paywall onboarding/.test(applied.stdout), publish);

    fs.mkdirSync(path.join(cwd, 'data'));
    assert.equal((await runCli(['projects', 'create', 'acme', '--db', 'data/paywalld.db'], { cwd })).status, 0);
    const onDb = await runCli(['plan', 'config', '--db', 'data/paywalld.db', ...flags, '--out', 'plan2.json'], { cwd });
    assert.equal(onDb.status, 0, onDb.stderr);
    const appliedDb = runHint(onDb.stdout.replace('plan1', 'plan2'), cwd, {});
    assert.equal(appliedDb.status, 0, appliedDb.stderr);
    assert.match(appliedDb.stdout, /Applied \d+ step\(s\) to data\/paywalld\.db \(project prj_/);
  });
}

test('--prune archives paywalls and deletes products the directory does not have, keeping products a live paywall uses', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  assert.equal((await management(server, 'PUT', '/api/products/legacy', { name: 'Legacy' })).status, 201);
  assert.equal((await management(server, 'PUT', '/api/products/unused', { name: 'Unused' })).status, 201);
  const legacy = readJson(path.join(EXAMPLE, 'paywalls/winback.json'));
  legacy.slots.primary = 'legacy';
  assert.equal((await management(server, 'PUT', '/api/paywalls/old', legacy)).status, 201);
  assert.equal((await management(server, 'POST', '/api/paywalls/old/publish')).status, 200);

  const plain = await against(server, ['plan', EXAMPLE]);
  assert.match(plain.stdout, /Note: paywall old is left alone: it is not in the directory \(apply --prune archives it\)\./);
  assert.match(plain.stdout, /Note: product unused is left alone/);

  // A copy: apply records what it left on the target in the directory (.paywalld-sync.json).
  const pruned = await against(server, ['apply', exampleCopy(t), '--prune']);
  assert.equal(pruned.status, 0, pruned.stderr);
  assert.match(pruned.stdout, /done: archive paywall old/);
  assert.match(pruned.stdout, /done: delete product legacy/);
  assert.match(pruned.stdout, /done: delete product unused/);
  const products = await (await management(server, 'GET', '/api/products')).json();
  assert.deepEqual(
    products.products.map((p: any) => p.id),
    ['pro_annual', 'pro_monthly'],
  );
  const old = await (await management(server, 'GET', '/api/paywalls/old')).json();
  assert.equal(old.status, 'archived');
});

test('--prune keeps a product the live revision still uses, and deletes it once --publish replaces that revision', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE]);
  const dir = exampleCopy(t);
  const products = readJson(path.join(dir, 'products.json'));
  products.products = products.products.filter((p: any) => p.id !== 'pro_monthly');
  writeJson(path.join(dir, 'products.json'), products);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  delete onboarding.slots.secondary;
  delete onboarding.variants[1].slots;
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const winback = readJson(path.join(dir, 'paywalls/winback.json'));
  winback.slots.primary = 'pro_annual';
  writeJson(path.join(dir, 'paywalls/winback.json'), winback);

  const drafts = await against(server, ['plan', dir, '--prune']);
  assert.equal(drafts.status, 0, drafts.stderr);
  assert.match(drafts.stdout, /Note: product pro_monthly is kept: live paywall onboarding still has it in a slot\./);
  assert.doesNotMatch(drafts.stdout, /delete product/);

  const published = await against(server, ['apply', dir, '--prune', '--publish']);
  assert.equal(published.status, 0, published.stderr);
  assert.match(published.stdout, /done: publish paywall onboarding \(same experiment phase\)\ndone: delete product pro_monthly/);
  const list = await (await management(server, 'GET', '/api/products')).json();
  assert.deepEqual(
    list.products.map((p: any) => p.id),
    ['pro_annual'],
  );
});

test('against a database file: the same plan and apply, one transaction, and a missing file is never created', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'paywalld.db');
  assert.equal((await runCli(['projects', 'create', 'acme', '--db', db])).status, 0);
  const config = exampleCopy(t);
  const applied = await runCli(['apply', config, '--db', db, '--publish']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /Applied 5 step\(s\) to .*paywalld\.db \(project prj_/);
  const again = await runCli(['apply', config, '--db', db, '--publish']);
  assert.match(again.stdout, /^No changes:/m);
  const out = path.join(dir, 'out');
  assert.equal((await runCli(['export', out, '--db', db])).status, 0);
  assert.deepEqual(readJson(path.join(out, 'paywalld.json')), { live: ['onboarding'] });

  const missing = path.join(dir, 'missing.db');
  const refused = await runCli(['plan', EXAMPLE, '--db', missing]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /does not exist/);
  assert.equal(fs.existsSync(missing), false);

  assert.equal((await runCli(['projects', 'create', 'second', '--db', db])).status, 0);
  const ambiguous = await runCli(['plan', EXAMPLE, '--db', db]);
  assert.equal(ambiguous.status, 2);
  assert.match(ambiguous.stderr, /holds 2 projects: name one with --project ID/);
});

test('the key comes from PAYWALLD_KEY or --key and is never printed, not even on failure', async (t) => {
  const server = await ciServer(t);
  const missingKey = await runCli(['plan', EXAMPLE, '--server', server.url], { env: { PAYWALLD_KEY: '' } });
  assert.equal(missingKey.status, 2);
  assert.match(missingKey.stderr, /PAYWALLD_KEY/);

  const viaFlag = await runCli(['plan', EXAMPLE, '--server', server.url, '--key', server.keys.secret]);
  assert.equal(viaFlag.status, 0, viaFlag.stderr);
  assert.ok(!viaFlag.stdout.includes(server.keys.secret) && !viaFlag.stderr.includes(server.keys.secret));

  const sdk = await against(server, ['apply', EXAMPLE], server.keys.sdk);
  assert.equal(sdk.status, 1);
  assert.match(sdk.stderr, /403 insufficient_scope/);
  assert.ok(!sdk.stderr.includes(server.keys.sdk) && !sdk.stdout.includes(server.keys.sdk));

  const wrong = `pwk_secret_${'x'.repeat(32)}`;
  const unknown = await runCli(['export', tempDir(t), '--server', server.url], { env: { PAYWALLD_KEY: wrong } });
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /401 invalid_api_key/);
  assert.ok(!unknown.stderr.includes(wrong));

  const unreachable = await runCli(['plan', EXAMPLE, '--server', 'http://127.0.0.1:1'], { env: { PAYWALLD_KEY: wrong } });
  assert.equal(unreachable.status, 1);
  assert.match(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:1/);
  assert.ok(!unreachable.stderr.includes(wrong));
});

test('the rate limit of a server is waited out (Retry-After), not reported as a failure', async (t) => {
  const server = await ciServer(t, ['--seed', EXAMPLE, '--rate-limit-api', '1']);
  const dir = path.join(tempDir(t), 'out');
  const exported = await against(server, ['export', dir]);
  assert.equal(exported.status, 0, exported.stderr);
  assert.deepEqual(readJson(path.join(dir, 'paywalld.json')), { live: ['onboarding'] });
});

test('an invalid directory is refused before the target is touched', async (t) => {
  const server = await ciServer(t);
  const dir = exampleCopy(t);
  fs.writeFileSync(path.join(dir, 'products.json'), '{"products": [{"id": "x"}]}');
  const result = await against(server, ['apply', dir, '--publish']);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^products\.json:\/products\/0\/name: /m);
  assert.match(result.stderr, /is not valid \(\d+ error\(s\)\); nothing was done/);
  const list = await (await management(server, 'GET', '/api/products')).json();
  assert.deepEqual(list.products, []);
});

test('a plain apply refuses to overwrite an edit made on the target since the last apply or export, naming it, unless --force', async (t) => {
  const server = await ciServer(t);
  const config = exampleCopy(t);
  assert.equal((await against(server, ['apply', config, '--publish'])).status, 0);
  // Someone edits the live paywall in the dashboard; the directory knows nothing of it.
  const edited = readJson(path.join(config, 'paywalls/onboarding.json'));
  edited.strings.en.title = 'From the dashboard';
  assert.equal((await management(server, 'PUT', '/api/paywalls/onboarding', edited)).status, 200);
  const changedInDir = readJson(path.join(config, 'paywalls/onboarding.json'));
  changedInDir.strings.en.title = 'From the directory';
  writeJson(path.join(config, 'paywalls/onboarding.json'), changedInDir);

  const refused = await against(server, ['apply', config, '--publish']);
  assert.equal(refused.status, 1);
  assert.match(
    refused.stderr,
    /refused: since the last export or apply from .*config, on http:\/\/127\.0\.0\.1:\d+ paywall onboarding was changed \(ETag "\d+" then, "\d+" now\); applying would overwrite that\. Nothing was changed\. Run "paywalld export .*config" \(with the same target\) to take the change into the directory, or apply --force to overwrite it\./,
  );
  const kept = await (await management(server, 'GET', '/api/paywalls/onboarding')).json();
  assert.equal(kept.document.strings.en.title, 'From the dashboard');

  // Exporting takes the edit into the directory; applying after that has nothing to refuse.
  const exported = path.join(tempDir(t), 'exported');
  fs.cpSync(config, exported, { recursive: true });
  assert.equal((await against(server, ['export', exported])).status, 0);
  assert.equal(readJson(path.join(exported, 'paywalls/onboarding.json')).strings.en.title, 'From the dashboard');
  // (The dashboard's edit was a draft: applying the exported directory with --publish makes it live.)
  const fromExport = await against(server, ['apply', exported, '--publish']);
  assert.equal(fromExport.status, 0, fromExport.stderr);
  assert.match(fromExport.stdout, /done: publish paywall onboarding \(revision 2, same experiment phase\)\n/);

  // --force overwrites, and is recorded: the next plain apply of the same directory goes through.
  const forced = await against(server, ['apply', config, '--publish', '--force']);
  assert.equal(forced.status, 0, forced.stderr);
  const now = await (await management(server, 'GET', '/api/paywalls/onboarding')).json();
  assert.equal(now.document.strings.en.title, 'From the directory');
  changedInDir.strings.en.title = 'Again from the directory';
  writeJson(path.join(config, 'paywalls/onboarding.json'), changedInDir);
  assert.equal((await against(server, ['apply', config, '--publish'])).status, 0);
});
