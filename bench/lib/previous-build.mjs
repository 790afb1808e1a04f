/**
 * The build a change is compared with (the versus scenario): the tree of a
 * commit, taken with `git archive` (nothing is left in the repository's
 * worktree list when a run is interrupted), built by its own build.mjs with
 * this checkout's node_modules.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describeDist, ROOT } from './paywalld.mjs';
import { run } from './processes.mjs';

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** What dist/ is built from: a change to any of these is a change the comparison is about. */
const SOURCES = ['src', 'build.mjs', 'package-lock.json'];

/**
 * The commit to compare with when none is given: HEAD when the sources
 * have uncommitted changes (they are the change), else HEAD's parent.
 */
export function defaultRef() {
  const dirty = git('status', '--porcelain', '--', ...SOURCES) !== '';
  return dirty ? 'HEAD' : 'HEAD~1';
}

/** The full and short hash and subject of `ref`; undefined when this clone does not have it (a shallow clone, the first commit). */
export function commitOf(ref) {
  try {
    const [sha, short, ...subject] = git('log', '-1', '--format=%H %h %s', `${ref}^{commit}`, '--').split(' ');
    return { sha, short, subject: subject.join(' ') };
  } catch {
    return undefined;
  }
}

/**
 * Builds `commit` in `dir` and describes its dist/ (describeDist), with
 * `dependencies`: whether its package-lock.json differs from this
 * checkout's, whose node_modules it was built with.
 */
export async function buildCommit(commit, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const archive = spawnSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', ROOT, commit.sha, dir], { encoding: 'utf8' });
  if (archive.status !== 0) throw new Error(`git archive ${commit.short} failed: ${archive.stderr}`);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await run(undefined, process.execPath, ['build.mjs'], { cwd: dir });
  const lockDiffers = spawnSync('git', ['diff', '--quiet', commit.sha, '--', 'package-lock.json'], { cwd: ROOT }).status !== 0;
  return { ...describeDist(path.join(dir, 'dist')), dependencies: lockDiffers ? 'differ (built with this checkout’s node_modules)' : 'the same' };
}
