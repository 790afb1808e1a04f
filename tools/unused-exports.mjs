// `npm run lint`: fails on an export of src/ that no other file imports.
// An export only its own file uses should not be one, and one nothing uses is
// dead code. A scan of import and export statements, not the compiler: the
// code base writes them one way (ESM, explicit extensions, Biome-formatted),
// so a scan is exact enough and takes a fraction of a second. Consumers are
// every source file of the repository (src, client, render, test, bench, tools and
// the build scripts); entry points are listed below.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const rootFlag = process.argv.indexOf('--root');
/** The repository, or another tree laid out the same way (its tests use one). */
const root = rootFlag === -1 ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') : path.resolve(process.argv[rootFlag + 1]);

/** Folders whose exports are checked. */
const CHECKED = ['src/'];
/** Modules whose exports are used from outside the repository or by file name: all of their exports count as used. */
const ENTRY_POINTS = new Set(['src/main.ts', 'src/sea-entry.ts', 'src/storage/sqlite-writer-thread.ts', 'client/index.ts', 'render/index.ts']);
const SOURCE = /\.(?:ts|tsx|mts|mjs|js)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'results', 'baselines']);

function sourceFiles(dir, out = []) {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) sourceFiles(relative, out);
    } else if (SOURCE.test(entry.name) && !/\.d\.m?ts$/.test(entry.name)) {
      out.push(relative);
    }
  }
  return out;
}

/** Comments out of the way, so that an example in a comment is not read as an import; a `//` after a colon or a quote is a URL or a string. */
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|(^|[^:\\'"`])\/\/[^\n]*/g, (_match, before) => (before === undefined ? ' ' : `${before} `));
}

function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mjs`, `${base}/index.ts`]) {
    if (fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return undefined;
}

/** `a, type b, c as d` → [['a','a'], ['b','b'], ['c','d']]: [imported name, local name]. */
function namedList(list) {
  return list
    .split(',')
    .map((part) => part.trim().replace(/^type\s+/, ''))
    .filter((part) => part !== '')
    .map((part) => {
      const [name, alias] = part.split(/\s+as\s+/);
      return [name.trim(), (alias ?? name).trim()];
    });
}

const files = [
  ...['src', 'client', 'render', 'test', 'bench', 'tools'].filter((dir) => fs.existsSync(path.join(root, dir))).flatMap((dir) => sourceFiles(dir)),
];
for (const name of fs.readdirSync(root)) if (SOURCE.test(name) && fs.statSync(path.join(root, name)).isFile()) files.push(name);

/** file → its own exported names */
const declared = new Map();
/** file → [{ from, names: [exported, local][] }] re-exports, and `export *` as names null */
const reexports = new Map();
/** file → Set of names other files use, '*' for all */
const used = new Map();
const use = (file, name) => {
  let set = used.get(file);
  if (!set) used.set(file, (set = new Set()));
  set.add(name);
};

for (const file of files) {
  const text = stripComments(fs.readFileSync(path.join(root, file), 'utf8'));
  const own = new Set();
  const again = [];
  for (const m of text.matchAll(
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\s*\*?|const|let|var|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm,
  )) {
    own.add(m[1]);
  }
  if (/^export\s+default\b/m.test(text)) own.add('default');
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s*['"]([^'"]+)['"])?/gm)) {
    const names = namedList(m[1]);
    if (m[2] === undefined) {
      for (const [, exported] of names) own.add(exported);
    } else {
      const target = resolveSpecifier(file, m[2]);
      for (const [, exported] of names) own.add(exported);
      if (target) again.push({ from: target, names });
    }
  }
  for (const m of text.matchAll(/^export\s+\*\s+(?:as\s+([\w$]+)\s+)?from\s*['"]([^'"]+)['"]/gm)) {
    const target = resolveSpecifier(file, m[2]);
    if (!target) continue;
    if (m[1]) {
      own.add(m[1]);
      use(target, '*');
    } else {
      again.push({ from: target, names: null });
    }
  }
  declared.set(file, own);
  reexports.set(file, again);

  // Static imports: default, named, namespace.
  for (const m of text.matchAll(/\bimport\s+(?:type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g)) {
    const target = resolveSpecifier(file, m[2]);
    if (!target || target === file) continue;
    const clause = m[1].trim();
    const named = /\{([^}]*)\}/.exec(clause);
    if (named) for (const [name] of namedList(named[1])) use(target, name);
    const namespace = /\*\s+as\s+([\w$]+)/.exec(clause);
    if (namespace) {
      const members = [...text.matchAll(new RegExp(`\\b${namespace[1].replace('$', '\\$')}\\.([A-Za-z_$][\\w$]*)`, 'g'))].map((x) => x[1]);
      // Passed on as a whole (`fn(ns)`): every export may be used.
      const whole = new RegExp(`\\b${namespace[1].replace('$', '\\$')}\\b(?!\\s*\\.)`, 'g');
      if ([...text.matchAll(whole)].length > 1) use(target, '*');
      for (const member of members) use(target, member);
    }
    const defaultName = clause
      .replace(/\{[^}]*\}/, '')
      .replace(/\*\s+as\s+[\w$]+/, '')
      .replace(/,/g, '')
      .trim();
    if (defaultName !== '' && defaultName !== 'type') use(target, 'default');
  }
  // Dynamic imports: `const { a, b } = await import('./x.ts')`, `import('./x.ts').Name` (types), else all of it.
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const target = resolveSpecifier(file, m[1]);
    if (!target || target === file) continue;
    const before = text.slice(Math.max(0, m.index - 300), m.index);
    const destructured = /\{([^}]*)\}\s*=\s*(?:await\s+)?$/.exec(before);
    const member = /^\s*\.([A-Za-z_$][\w$]*)/.exec(text.slice(m.index + m[0].length));
    if (destructured) for (const [name] of namedList(destructured[1].replace(/:\s*[\w$]+/g, ''))) use(target, name);
    else if (member) use(target, member[1]);
    else use(target, '*');
  }
}

/** Whether `name`, as exported by `file`, is used by another file, directly or through a re-export that is. */
function isUsed(file, name, seen = new Set()) {
  const key = `${file}\u0000${name}`;
  if (seen.has(key)) return false;
  seen.add(key);
  if (ENTRY_POINTS.has(file)) return true;
  const set = used.get(file);
  if (set && (set.has(name) || set.has('*'))) return true;
  for (const [other, list] of reexports) {
    for (const { from, names } of list) {
      if (from !== file) continue;
      if (names === null) {
        if (!declared.get(other).has(name) && isUsed(other, name, seen)) return true;
      } else {
        for (const [imported, exported] of names) if (imported === name && isUsed(other, exported, seen)) return true;
      }
    }
  }
  return false;
}

const unused = [];
for (const file of files) {
  if (!CHECKED.some((dir) => file.startsWith(dir))) continue;
  for (const name of declared.get(file)) if (!isUsed(file, name)) unused.push(`${file}: ${name}`);
}
if (unused.length > 0) {
  console.error(`Exports no other file imports (make them local, or delete them if nothing uses them):\n  ${unused.join('\n  ')}`);
  process.exit(1);
}
console.log(`unused exports: none in ${CHECKED.join(', ')} (${files.length} files scanned)`);
