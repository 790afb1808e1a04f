import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIST, runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/operations/backups.md');

/** The restore steps of docs/operations/backups.md, split at their "# N." comment lines. */
function restoreSteps(): string[][] {
  const text = fs.readFileSync(PAGE, 'utf8');
  const block = /<!-- restore-steps -->\n```sh norun\n([\s\S]*?)```/.exec(text);
  assert.ok(block, 'docs/operations/backups.md has a restore-steps block');
  const steps: string[][] = [];
  for (const line of block[1]!.trim().split('\n')) {
    if (/^# \d+\./.test(line)) steps.push([]);
    else if (!line.startsWith('#')) steps.at(-1)!.push(line);
  }
  return steps;
}

/** Runs the page's command lines in bash, `paywalld` being the built bundle. */
function run(lines: string[], cwd: string): void {
  const script = `set -euo pipefail\npaywalld() { node ${JSON.stringify(DIST)} "$@"; }\n${lines.join('\n')}\n`;
  const result = spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, `${lines.join('\n')}\n${result.stderr}`);
}

test('the restore steps of docs/operations/backups.md bring back the data of the snapshot', async (t) => {
  const [snapshot, restore, start] = restoreSteps();
  assert.ok(snapshot && restore && start);
  assert.deepEqual(start, ['paywalld serve']);
  const dir = tempDir(t);

  const before = await spawnServe(t, [], { cwd: dir });
  await runCli(['projects', 'create', 'made-before-backup'], { cwd: dir });
  run(snapshot, dir);
  await runCli(['projects', 'create', 'made-after-backup'], { cwd: dir });
  assert.equal(await before.stop(), 0);

  run(restore, dir);
  const after = await spawnServe(t, [], { cwd: dir });
  const projects = JSON.parse((await runCli(['projects', 'list', '--json'], { cwd: dir })).stdout).projects.map((p: { name: string }) => p.name);
  assert.deepEqual(projects.sort(), ['default', 'made-before-backup']);
  assert.equal((await fetch(`${after.url}/healthz`)).status, 200);
  assert.equal(await after.stop(), 0);
});
