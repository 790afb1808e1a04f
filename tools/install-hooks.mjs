// `npm ci` and `npm install` run this (package.json "prepare"): git takes its
// hooks from the tracked .githooks/ folder, so the commit-msg check
// (tools/commit-subjects.mjs) runs on every commit. Outside a git work tree
// (an unpacked tarball), without git, or in CI, it does nothing and never
// fails the install; `npm run lint` checks the subjects there.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

try {
  if (process.env.CI) process.exit(0);
  if (git('rev-parse', '--is-inside-work-tree') !== 'true') process.exit(0);
  // Only for this repository's own work tree, not for a project that has paywalld inside its node_modules.
  if (path.resolve(git('rev-parse', '--show-toplevel')) !== root) process.exit(0);
  git('config', 'core.hooksPath', '.githooks');
} catch {
  // Not a git work tree, or no git: nothing to install.
}
