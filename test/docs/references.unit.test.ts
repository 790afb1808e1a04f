/**
 * The docs are a tree of pages (README.md, docs/guide, docs/reference,
 * docs/operations, docs/internals) that code comments, messages and other
 * pages point into, as a path or as `(docs/x.md, "Section")`. A page that
 * moves or a heading that is renamed breaks those pointers silently; this
 * file fails on each one, saying where it is and what it names.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where pointers into the docs are written: sources, tests, tools, deployment files and the docs themselves. */
const SCANNED = ['src', 'test', 'client', 'render', 'bench', 'tools', 'deploy', 'docs', 'examples', '.ci'];
const SCANNED_FILES = ['README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md', 'build.mjs', 'build-exe.mjs', 'runtimes.mjs', 'package.json'];
const TEXT = /\.(ts|tsx|mjs|js|md|py|json|conf|service|sh)$|^(run|Caddyfile)$/;
const SKIPPED = new Set(['node_modules', 'results', 'baselines', 'fixtures', 'screenshots']);

function walk(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) found.push(...walk(relative));
    } else if (TEXT.test(entry.name)) found.push(relative);
  }
  return found;
}

/** Every scanned file but this one, whose comments show the pattern. */
const files = (): string[] =>
  [...SCANNED_FILES, ...SCANNED.filter((dir) => fs.existsSync(path.join(ROOT, dir))).flatMap(walk)].filter(
    (file) => file !== 'test/docs/references.unit.test.ts',
  );
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** A file's text with comment and line breaks folded into spaces, so that a reference wrapped over two comment lines reads as one. */
const folded = (text: string): string => text.replaceAll('\\n', ' ').replace(/\n[ \t]*(?:\*(?!\*)|\/\/|#(?!#)|--)?[ \t]*/g, ' ');

/** The headings of a Markdown page (outside code blocks), without their backticks. */
function headings(file: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of read(file).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) {
      const heading = /^#{1,6}\s+(.*)$/.exec(line);
      if (heading) found.push(heading[1]!.replaceAll('`', '').trim());
    }
  }
  return found;
}

/** A section is a heading (whole, or before its `:`, `,` or ` (`) or a bold lead-in (`**Limits.**`). */
function hasSection(file: string, section: string): boolean {
  const plain = section.replaceAll('`', '');
  if (headings(file).some((heading) => heading === plain || [':', ',', ' ('].some((after) => heading.startsWith(plain + after)))) return true;
  return read(file).includes(`**${section}.**`) || read(file).includes(`**${section}**`);
}

/** GitHub's anchor of a heading. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const heading of headings(file)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** A page named in `from`: from the repository's root, else from `from`'s folder (a Markdown link). */
function resolvePage(from: string, name: string): string | undefined {
  const bare = /^(README|CONTRIBUTING|BENCHMARKS)$/.test(name) ? `${name}.md` : name;
  for (const candidate of [path.posix.normalize(bare), path.posix.join(path.posix.dirname(from), bare)]) {
    if (fs.existsSync(path.join(ROOT, candidate)) && fs.statSync(path.join(ROOT, candidate)).isFile()) return candidate;
  }
  return undefined;
}

const PAGE = String.raw`((?:\.\.?/)*[\w./-]*\b(?:[\w-]+\.md|README|CONTRIBUTING|BENCHMARKS))`;

test('every (page.md, "Section") reference in the code and the docs names a page and a section of it', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of files()) {
    const text = folded(read(file));
    const references = [
      ...[...text.matchAll(new RegExp(`${PAGE}\\)?,? "([^"\\n]{2,100})"`, 'g'))].map((match) => [match[1]!, match[2]!] as const),
      ...[...text.matchAll(new RegExp(`"([^"\\n]{2,100})" in ${PAGE}`, 'g'))].map((match) => [match[2]!, match[1]!] as const),
    ];
    for (const [name, section] of references) {
      const page = resolvePage(file, name);
      checked++;
      if (!page) broken.push(`${file}: (${name}, "${section}"): no such page`);
      else if (!hasSection(page, section)) broken.push(`${file}: (${name}, "${section}"): ${page} has no such heading or bold lead-in`);
    }
  }
  assert.ok(checked >= 100, `found only ${checked} references: the pattern no longer matches how they are written`);
  assert.deepEqual(broken, []);
});

test('every docs page a file names by its path exists', () => {
  const broken: string[] = [];
  for (const file of files()) {
    for (const match of read(file).matchAll(/(?<![\w/.-])((?:docs\/[\w./-]+|README|CONTRIBUTING|BENCHMARKS)\.md)\b/g)) {
      if (!fs.existsSync(path.join(ROOT, match[1]!))) broken.push(`${file}: ${match[1]}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('every relative link of the docs leads to a file, and every #anchor to one of its headings', () => {
  const broken: string[] = [];
  const pages = files().filter((file) => file.endsWith('.md'));
  for (const file of pages) {
    let fenced = false;
    for (const line of read(file).split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      if (fenced) continue;
      for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [where, anchor] = target.split('#') as [string, string | undefined];
        const linked = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
        if (!fs.existsSync(path.join(ROOT, linked))) broken.push(`${file}: ${target}: no such file`);
        else if (anchor !== undefined && linked.endsWith('.md') && !anchors(linked).has(anchor))
          broken.push(`${file}: ${target}: no such heading in ${linked}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
