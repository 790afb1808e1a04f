/** The commit-subject rule (tools/commit-subjects.mjs): the commit-msg hook's check, and npm run lint's over a history. */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestContext, test } from 'node:test';

const SCRIPT = path.resolve(import.meta.dirname, '../../tools/commit-subjects.mjs');

function temporary(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-subjects-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function checkMessage(t: TestContext, message: string): { status: number | null; stderr: string } {
  const file = path.join(temporary(t), 'COMMIT_EDITMSG');
  fs.writeFileSync(file, message);
  const run = spawnSync(process.execPath, [SCRIPT, '--message-file', file], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

test('the hook takes `area: what` up to 72 characters, the body after a blank line', (t) => {
  assert.equal(checkMessage(t, 'http: routes declare their input\n\nWhy, and the figures.\n').status, 0);
  assert.equal(checkMessage(t, `docs: ${'x'.repeat(66)}\n`).status, 0);
  assert.equal(checkMessage(t, '# a comment git strips\nconfig-dir: apply in one transaction\n').status, 0);
  // Folded into the commit they name before they land.
  assert.equal(checkMessage(t, `fixup! ${'y'.repeat(100)}\n`).status, 0);
});

test('the hook refuses a long subject, another form, an unknown area, a body without a blank line', (t) => {
  const cases: [string, RegExp][] = [
    [`docs: ${'x'.repeat(67)}\n`, /73 characters; at most 72/],
    ['Dashboard: one SelectField widget\n', /not `area: what changed`/],
    ['docs:no space\n', /not `area: what changed`/],
    ['refactor: tidy things\n', /"refactor" is not an area/],
    ['http: a subject\nand a body at once\n', /not followed by a blank line/],
  ];
  for (const [message, why] of cases) {
    const { status, stderr } = checkMessage(t, message);
    assert.equal(status, 1, message);
    assert.match(stderr, why);
  }
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8' });
}

function lint(repo: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [SCRIPT, '--repo', repo], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('lint checks the commits since the last tag, merges left out, and names each one that breaks the rule', (t) => {
  const repo = temporary(t);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'commit', '-q', '--allow-empty', '-m', `An old subject from before the rule, far longer than seventy-two characters in all`);
  git(repo, 'tag', 'v1');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'docs: a subject that keeps the rule');
  git(repo, 'checkout', '-q', '-b', 'lane');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'http: another one');
  git(repo, 'checkout', '-q', 'main');
  git(repo, 'merge', '-q', '--no-ff', '-m', "Merge branch 'lane', a merge subject git writes", 'lane');
  const clean = lint(repo);
  assert.equal(clean.status, 0, clean.stderr);
  assert.match(clean.stdout, /2 since tag v1/);

  git(repo, 'commit', '-q', '--allow-empty', '-m', 'Tests: a subject in the old style');
  const broken = lint(repo);
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /Tests: a subject in the old style\n\s+the subject is not `area: what changed`/);
  assert.doesNotMatch(broken.stderr, /An old subject|Merge branch/);
});

/** A commit that adds the script at tools/commit-subjects.mjs, where the rule starts when there is no tag. */
function addRule(repo: string, subject: string): void {
  fs.mkdirSync(path.join(repo, 'tools'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'tools/commit-subjects.mjs'), '// the rule\n');
  git(repo, 'add', 'tools/commit-subjects.mjs');
  git(repo, 'commit', '-q', '-m', subject);
}

test('without a tag, the rule holds from the commit that added the check, for it and what is built on it', (t) => {
  const repo = temporary(t);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'An old subject from before the rule, which nobody rewrites any more');
  git(repo, 'checkout', '-q', '-b', 'older-lane');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'An old lane forked before the rule and merged after it');
  git(repo, 'checkout', '-q', 'main');
  addRule(repo, 'build: commit subjects of at most 72 characters');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'docs: one');
  git(repo, 'merge', '-q', '--no-ff', '-m', 'Merge the older lane', 'older-lane');
  const clean = lint(repo);
  assert.equal(clean.status, 0, clean.stderr);
  assert.match(clean.stdout, /2 since [0-9a-f]{7,}, where the rule starts/);

  git(repo, 'commit', '-q', '--allow-empty', '-m', `docs: ${'z'.repeat(70)}`);
  const broken = lint(repo);
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /the subject is 76 characters; at most 72/);
  assert.doesNotMatch(broken.stderr, /An old/);
});

test('the commit that adds the check is held to it, and a shallow clone checks the commits it has', (t) => {
  const origin = temporary(t);
  git(origin, 'init', '-q', '-b', 'main');
  git(origin, 'commit', '-q', '--allow-empty', '-m', 'An old subject from before the rule');
  addRule(origin, 'Adding the subject rule, in a subject that breaks it');
  assert.match(lint(origin).stderr, /Adding the subject rule/);

  git(origin, 'commit', '-q', '--amend', '-m', 'build: commit subjects of at most 72 characters');
  git(origin, 'commit', '-q', '--allow-empty', '-m', 'docs: one');
  git(origin, 'commit', '-q', '--allow-empty', '-m', 'docs: two');
  const shallow = path.join(temporary(t), 'clone');
  git(origin, 'clone', '-q', '--depth', '2', `file://${origin}`, shallow);
  const result = lint(shallow);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /2 since [0-9a-f]{7,}, where the rule starts/);
});

test('without a tag or a committed check, there is nothing to check yet', (t) => {
  const repo = temporary(t);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'An old subject, and no rule yet');
  const result = lint(repo);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /0 since the rule \(tools\/commit-subjects\.mjs is not committed yet\)/);
});

test('outside a git work tree there is nothing to check', (t) => {
  const result = lint(temporary(t));
  assert.equal(result.status, 0);
  assert.match(result.stdout, /not a git work tree/);
});
