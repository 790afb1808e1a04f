/**
 * Placements as code through the real CLI and bundle: placements/<id>.json
 * is validated offline with the server's rules (errors at pointers, the
 * warning of a rule naming a paywall the directory leaves unpublished),
 * seeded, planned with a diff, applied (against a server and a database
 * file), pruned, and exported back byte for byte.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { against, ciServer, exampleCopy, management, readJson, snapshotFiles, writeJson } from '../helpers/config-dir.ts';
import { tempDir } from '../helpers/temp.ts';

const winback = {
  name: 'Win back',
  rules: [{ audience: { 'purchases.lapsed_days': { $gte: 7 } }, paywall_id: 'winback', holdout_percent: 10, frequency: { limit: 1, per: 'week' } }],
  default: 'none',
};

function withPlacements(t: Parameters<typeof exampleCopy>[0]): string {
  const dir = exampleCopy(t);
  fs.mkdirSync(path.join(dir, 'placements'));
  writeJson(path.join(dir, 'placements/lapsed.json'), winback);
  return dir;
}

test('validate reads placements/*.json with the server rules: errors at pointers, a warning for a paywall left unpublished', async (t) => {
  const dir = withPlacements(t);
  writeJson(path.join(dir, 'placements/bad.json'), { name: 'Bad', rules: [{ paywall_id: 'onboarding', holdout_percent: 80 }] });
  fs.writeFileSync(path.join(dir, 'placements/notes.txt'), 'not a placement');
  const refused = await runCli(['validate', dir]);
  assert.equal(refused.status, 1);
  assert.match(refused.stdout + refused.stderr, /placements\/bad\.json:\/rules\/0\/holdout_percent: /);
  fs.rmSync(path.join(dir, 'placements/bad.json'));
  const valid = await runCli(['validate', dir, '--format', 'json']);
  assert.equal(valid.status, 0, valid.stdout + valid.stderr);
  const report = JSON.parse(valid.stdout);
  assert.deepEqual(
    report.warnings
      .filter((w: { file: string }) => w.file.startsWith('placements/'))
      .map((w: { file: string; path: string; code?: string }) => [w.file, w.path, w.code]),
    [
      ['placements/notes.txt', '', undefined],
      ['placements/lapsed.json', '/rules/0/paywall_id', 'paywall_not_live'],
    ],
  );
  // Published (paywalld.json lists it): no warning.
  writeJson(path.join(dir, 'paywalld.json'), { live: ['onboarding', 'winback'] });
  fs.rmSync(path.join(dir, 'placements/notes.txt'));
  assert.equal((await runCli(['validate', dir, '--strict'])).status, 0);
});

test('seed, plan with a diff, apply, apply again, prune and export round-trip placements', async (t) => {
  const dir = withPlacements(t);
  writeJson(path.join(dir, 'paywalld.json'), { live: ['onboarding', 'winback'] });
  const server = await ciServer(t, ['--seed', dir]);
  const seeded = await (await management(server, 'GET', '/api/placements/lapsed')).json();
  assert.deepEqual([seeded.revision, seeded.document], [1, winback]);

  const changed = { ...winback, rules: [{ ...winback.rules[0], holdout_percent: 20 }] };
  writeJson(path.join(dir, 'placements/lapsed.json'), changed);
  writeJson(path.join(dir, 'placements/exit.json'), { name: 'Exit', rules: [{ paywall_id: 'onboarding' }] });
  const plan = await against(server, ['plan', dir]);
  assert.equal(plan.status, 0, plan.stderr);
  const lines = plan.stdout.split('\n').map((line) => line.trim().replace(/\s+/g, ' '));
  for (const expected of [
    '+ create placement exit',
    '~ new revision of placement lapsed',
    'at /rules/0/holdout_percent:',
    '- "holdout_percent": 10,',
    '+ "holdout_percent": 20,',
  ]) {
    assert.ok(lines.includes(expected), `${expected}\nin\n${plan.stdout}`);
  }
  const applied = await against(server, ['apply', dir]);
  assert.equal(applied.status, 0, applied.stderr);
  assert.equal((await (await management(server, 'GET', '/api/placements/lapsed')).json()).revision, 2);
  const twice = await against(server, ['apply', dir]);
  assert.match(twice.stdout, /^No changes: .* \(2 products, 2 paywalls, 2 placements unchanged\)\.$/m);

  // A placement the directory does not have: a note, then archived with --prune.
  assert.equal((await management(server, 'PUT', '/api/placements/extra', { name: 'Extra', rules: [] })).status, 201);
  assert.match((await against(server, ['plan', dir])).stdout, /placement extra is left alone: it is not in the directory/);
  const refused = await against(server, ['apply', dir, '--prune']);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /placement extra was created; applying would overwrite that/);
  const pruned = await against(server, ['apply', dir, '--prune', '--force']);
  assert.equal(pruned.status, 0, pruned.stderr);
  assert.equal((await (await management(server, 'GET', '/api/placements/extra')).json()).status, 'archived');

  const exported = path.join(tempDir(t), 'exported');
  const result = await against(server, ['export', exported]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /\(2 live\) and 2 placement\(s\)/);
  const files = snapshotFiles(exported);
  assert.deepEqual(
    Object.keys(files)
      .filter((file) => file.startsWith('placements'))
      .sort(),
    ['placements/exit.json', 'placements/lapsed.json'],
  );
  assert.deepEqual(readJson(path.join(exported, 'placements/lapsed.json')), changed);
  assert.equal(files['placements/lapsed.json'], fs.readFileSync(path.join(dir, 'placements/lapsed.json'), 'utf8'));

  // Into a database file: the same steps through the services, in one transaction.
  const db = path.join(tempDir(t), 'target.db');
  assert.equal((await runCli(['projects', 'create', 'target', '--db', db])).status, 0);
  const intoDb = await runCli(['apply', exported, '--publish', '--db', db]);
  assert.equal(intoDb.status, 0, intoDb.stderr);
  const back = path.join(tempDir(t), 'back');
  assert.equal((await runCli(['export', back, '--db', db])).status, 0);
  assert.deepEqual(snapshotFiles(back), snapshotFiles(exported));
});
