// Commit subjects: at most 72 characters, `area: what changed`, the area from
// the list in CONTRIBUTING.md ("Commits"), which this script reads so that
// the list lives once.
//
//   node tools/commit-subjects.mjs --message-file F   the commit-msg hook (.githooks/)
//   node tools/commit-subjects.mjs [--repo DIR]       npm run lint: every commit since
//                                                     the last tag, else since the rule
//
// The history before the rule is not rewritten. Until the first tag, the rule
// holds from the commit that added this script on: that commit and the ones
// built on it (merges aside). A fixed hash cannot be: commits written before
// the rule kept landing on main until it did. In a shallow clone that lacks
// that commit, git sees the script added by the oldest commit it has, so the
// commits the clone has are checked; outside a git work tree there is
// nothing to check.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This script, whose first commit starts the rule. */
const SCRIPT = 'tools/commit-subjects.mjs';
const MAX_SUBJECT = 72;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function areas() {
  const text = fs.readFileSync(path.join(root, 'CONTRIBUTING.md'), 'utf8');
  const line = /^Areas: (.+)$/m.exec(text);
  if (!line) throw new Error('CONTRIBUTING.md has no "Areas: `a`, `b`, …" line');
  return new Set([...line[1].matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]));
}

/** What is wrong with a commit message, or nothing. */
function problems(message, known) {
  const lines = message.split('\n').filter((line) => !line.startsWith('#'));
  const subject = lines[0] ?? '';
  const found = [];
  if (subject.length > MAX_SUBJECT) found.push(`the subject is ${subject.length} characters; at most ${MAX_SUBJECT}`);
  const match = /^([a-z0-9-]+): \S/.exec(subject);
  if (!match) found.push('the subject is not `area: what changed`');
  else if (!known.has(match[1])) found.push(`"${match[1]}" is not an area of CONTRIBUTING.md ("Commits")`);
  if (lines.length > 1 && lines[1].trim() !== '') found.push('the subject is not followed by a blank line');
  return found;
}

const repoFlag = process.argv.indexOf('--repo');
/** The repository whose history is checked: this one, or another (its tests use one). */
const repo = repoFlag === -1 ? root : path.resolve(process.argv[repoFlag + 1]);

function git(...args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

function tryGit(...args) {
  try {
    return git(...args);
  } catch {
    return undefined;
  }
}

/** The commits to check, as `git log` arguments: since the last tag, else the rule's first commit and those built on it. */
function range() {
  const tag = tryGit('describe', '--tags', '--abbrev=0');
  if (tag) return { logs: [[`${tag}..HEAD`]], since: `tag ${tag}` };
  const start = tryGit('log', '--diff-filter=A', '--format=%h', 'HEAD', '--', SCRIPT)?.split('\n').pop();
  if (!start) return { logs: [], since: `the rule (${SCRIPT} is not committed yet)` };
  return {
    logs: [
      ['-1', start],
      ['--ancestry-path', `${start}..HEAD`],
    ],
    since: `${start}, where the rule starts`,
  };
}

const known = areas();
const fileFlag = process.argv.indexOf('--message-file');
if (fileFlag !== -1) {
  const message = fs.readFileSync(process.argv[fileFlag + 1], 'utf8');
  // fixup!/squash!/amend! commits are folded into the commit they name before they land.
  if (/^(?:fixup|squash|amend)! /.test(message)) process.exit(0);
  const found = problems(message, known);
  if (found.length > 0) {
    console.error(
      `commit refused: ${found.join('; ')}.\nCONTRIBUTING.md, "Commits", gives the form and the areas. The message is kept in ${process.argv[fileFlag + 1]}.`,
    );
    process.exit(1);
  }
  process.exit(0);
}

if (tryGit('rev-parse', '--is-inside-work-tree') !== 'true') {
  console.log('commit subjects: not a git work tree, nothing to check');
  process.exit(0);
}
const { logs, since } = range();
const log = logs.map((args) => git('log', '--no-merges', '--format=%h%x00%B%x01', ...args)).join('\x01');
const refused = [];
let count = 0;
for (const entry of log.split('\x01')) {
  const text = entry.replace(/^\n/, '');
  if (text.trim() === '') continue;
  const [hash, message] = text.split('\x00');
  count++;
  const found = problems(message.trim(), known);
  if (found.length > 0) refused.push(`${hash} ${message.split('\n')[0]}\n    ${found.join('; ')}`);
}
if (refused.length > 0) {
  console.error(`Commit subjects since ${since} that break the rule (CONTRIBUTING.md, "Commits"):\n  ${refused.join('\n  ')}`);
  process.exit(1);
}
console.log(`commit subjects: ${count} since ${since}, all well formed`);
