import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { EXAMPLE, exampleCopy, readJson, writeJson } from '../helpers/config-dir.ts';
import { tempDir } from '../helpers/temp.ts';

const validate = (...args: string[]) => runCli(['validate', ...args]);

test('the example directory is valid: exit 0, no problems', async () => {
  const result = await validate(EXAMPLE);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /valid: 2 product\(s\), 2 paywall\(s\); 0 error\(s\), 0 warning\(s\)/);
});

test('errors are printed as file:/json/pointer: message and exit 1', async (t) => {
  const dir = exampleCopy(t);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  onboarding.slots.primary = 'pro_lifetime';
  onboarding.variants.push({ id: 'control', weight: 1 });
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const products = readJson(path.join(dir, 'products.json'));
  products.products[1].name = '';
  writeJson(path.join(dir, 'products.json'), products);
  fs.writeFileSync(path.join(dir, 'paywalls/winback.json'), '{\n  "name": "Win-back",\n  oops\n}\n');
  fs.writeFileSync(path.join(dir, 'paywalls/Not an id.json'), '{}');
  writeJson(path.join(dir, 'paywalld.json'), { live: ['onboarding', 'ghost'] });

  const result = await validate(dir);
  assert.equal(result.status, 1);
  const lines = result.stdout.trim().split('\n');
  for (const expected of [
    'products.json:/products/1/name: Must not be empty',
    'paywalls/onboarding.json:/slots/primary: No product with this id exists in the project',
    'paywalls/onboarding.json:/variants/2/id: Duplicate variant id',
    'paywalld.json:/live/1: No paywall file paywalls/ghost.json',
  ]) {
    assert.ok(lines.includes(expected), `${expected}\nin\n${result.stdout}`);
  }
  assert.ok(
    lines.some((line) => /^paywalls\/winback\.json: Not valid JSON at line 3, column 3/.test(line)),
    result.stdout,
  );
  assert.ok(
    lines.some((line) => line.startsWith('paywalls/Not an id.json: The file name must be the paywall id')),
    result.stdout,
  );
  assert.match(lines.at(-1)!, /invalid: 6 error\(s\)/);
});

test('a missing products.json or directory is an error, not an empty catalog', async (t) => {
  const dir = exampleCopy(t);
  fs.rmSync(path.join(dir, 'products.json'));
  const missing = await validate(dir);
  assert.equal(missing.status, 1);
  assert.match(missing.stdout, /^products\.json: Missing$/m);

  const nowhere = await validate(path.join(tempDir(t), 'nope'));
  assert.equal(nowhere.status, 1);
  assert.match(nowhere.stdout, /nope: Not a directory\n/);
});

test('warnings alone exit 0, and 1 with --strict', async (t) => {
  const dir = exampleCopy(t);
  const winback = readJson(path.join(dir, 'paywalls/winback.json'));
  winback.root.children = winback.root.children.filter((node: any) => node.type !== 'button');
  writeJson(path.join(dir, 'paywalls/winback.json'), winback);
  fs.writeFileSync(path.join(dir, 'paywalls/notes.txt'), 'not a paywall');

  const relaxed = await validate(dir);
  assert.equal(relaxed.status, 0, relaxed.stdout);
  assert.match(relaxed.stdout, /^paywalls\/winback\.json:\/root: warning: .*restore/im);
  assert.match(relaxed.stdout, /^paywalls\/notes\.txt: warning: Ignored/m);
  assert.match(relaxed.stdout, /valid: .*0 error\(s\), 2 warning\(s\)/);

  const strict = await validate(dir, '--strict');
  assert.equal(strict.status, 1);
  assert.match(strict.stdout, /invalid: 0 error\(s\), 2 warning\(s\) \(--strict\)/);
});

test("a slot's product without a store id on a platform the catalog sells on is a warning naming the platform, as the server gives it", async (t) => {
  const dir = exampleCopy(t);
  const products = readJson(path.join(dir, 'products.json'));
  products.products.push({ id: 'web_only', name: 'Web only', store_ids: { stripe: 'price_web' } });
  writeJson(path.join(dir, 'products.json'), products);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  onboarding.slots.primary = 'web_only';
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const result = await validate(dir, '--format', 'json');
  assert.equal(result.status, 0, result.stderr);
  const warnings = JSON.parse(result.stdout).warnings.filter((w: { code?: string }) => w.code === 'no_store_id');
  assert.deepEqual(
    warnings.map((w: { file: string; path: string; message: string }) => `${w.file}:${w.path}: ${w.message}`),
    [
      'paywalls/onboarding.json:/slots/primary: Product web_only has no app_store id: on iOS, where the project sells, this slot offers nothing to buy',
      'paywalls/onboarding.json:/slots/primary: Product web_only has no play_store id: on Android, where the project sells, this slot offers nothing to buy',
    ],
  );
});

test('--format json gives tools every problem with file, path and message', async (t) => {
  const dir = exampleCopy(t);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  delete onboarding.default_locale;
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const result = await validate(dir, '--format', 'json');
  assert.equal(result.status, 1);
  const report = JSON.parse(result.stdout);
  assert.equal(report.valid, false);
  assert.deepEqual(report.errors, [{ file: 'paywalls/onboarding.json', path: '/default_locale', message: report.errors[0].message }]);
  assert.deepEqual(report.warnings, []);

  const valid = JSON.parse((await validate(EXAMPLE, '--format', 'json')).stdout);
  assert.deepEqual(valid, { valid: true, errors: [], warnings: [] });
});

test('a document over 1 MiB is refused as the server refuses it', async (t) => {
  const dir = exampleCopy(t);
  const onboarding = readJson(path.join(dir, 'paywalls/onboarding.json'));
  onboarding.metadata = { padding: 'x'.repeat(1024 * 1024) };
  writeJson(path.join(dir, 'paywalls/onboarding.json'), onboarding);
  const result = await validate(dir);
  assert.equal(result.status, 1);
  assert.match(result.stdout, /^paywalls\/onboarding\.json: The document is larger than 1 MiB/m);
});

test('wrong usage exits 2', async () => {
  assert.equal((await validate()).status, 2);
  assert.equal((await validate(EXAMPLE, '--format', 'yaml')).status, 2);
  assert.equal((await validate(EXAMPLE, 'other')).status, 2);
});

test('validate reads only regular files inside the directory, up to 16 MiB: links out of it, /dev/zero, FIFOs and huge files are errors', async (t) => {
  const dir = exampleCopy(t);
  const token = path.join(tempDir(t), 'token.env');
  fs.writeFileSync(token, 'TOKEN=pwk_secret_do_not_print\n');
  fs.rmSync(path.join(dir, 'products.json'));
  fs.symlinkSync(token, path.join(dir, 'products.json'));
  fs.rmSync(path.join(dir, 'paywalls/winback.json'));
  fs.symlinkSync('/dev/zero', path.join(dir, 'paywalls/winback.json'));
  assert.equal(spawnSync('mkfifo', [path.join(dir, 'paywalls/pipe.json')]).status, 0);
  fs.writeFileSync(path.join(dir, 'paywalls/huge.json'), '');
  fs.truncateSync(path.join(dir, 'paywalls/huge.json'), 16 * 1024 * 1024 + 1);
  // A link that stays inside the directory is read like the file it names.
  fs.mkdirSync(path.join(dir, 'shared'));
  fs.renameSync(path.join(dir, 'paywalls/onboarding.json'), path.join(dir, 'shared/onboarding.json'));
  fs.symlinkSync('../shared/onboarding.json', path.join(dir, 'paywalls/onboarding.json'));

  const result = await validate(dir);
  assert.equal(result.status, 1, result.stderr);
  assert.doesNotMatch(result.stdout + result.stderr, /TOKEN|do_not_print/);
  const lines = result.stdout.trim().split('\n');
  for (const expected of [
    'products.json: A symbolic link that leads outside the directory: not read',
    'paywalls/winback.json: A symbolic link that leads outside the directory: not read',
    'paywalls/pipe.json: Not a regular file (a directory, device, FIFO or socket): not read',
    'paywalls/huge.json: Larger than 16 MiB (16777216 bytes): not read',
  ]) {
    assert.ok(lines.includes(expected), `${expected}\nin\n${result.stdout}`);
  }
  assert.ok(!lines.some((line) => line.startsWith('paywalls/onboarding.json')), result.stdout);
  assert.match(lines.at(-1)!, /invalid: 4 error\(s\)/);

  // paywalls/ itself linked out of the directory: its files are not even listed.
  const outside = path.join(tempDir(t), 'elsewhere');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'private-name.json'), '{}');
  const linkedDir = exampleCopy(t);
  fs.rmSync(path.join(linkedDir, 'paywalls'), { recursive: true });
  fs.symlinkSync(outside, path.join(linkedDir, 'paywalls'));
  const linked = await validate(linkedDir);
  assert.equal(linked.status, 1);
  assert.match(linked.stdout, /^paywalls: A symbolic link that leads outside the directory: not read$/m);
  assert.doesNotMatch(linked.stdout, /private-name/);
});
