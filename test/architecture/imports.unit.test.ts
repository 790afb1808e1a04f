/**
 * The shape of the code base, checked on every test run: the domain speaks
 * no HTTP, routes get services rather than the context, the CLI knows no
 * HTTP, and features meet only through their public shapes (CONTRIBUTING.md,
 * "Where things live").
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');
/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; group 1 is `type ` for type-only imports. */
const IMPORT = /\b(?:import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s*)?'([^']+)'|\bimport\s*\(\s*'([^']+)'/g;

/** Folders under src/ that are not features: the edge, the shared leaf, the database drivers, the wiring of stores above the features, the CLI. */
const NOT_FEATURES = new Set(['http', 'shared', 'db', 'storage', 'cli']);

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import between files of src/, as paths relative to src/ (`keys/store.ts`). */
function importEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = (match[2] ?? match[3])!;
      if (!specifier.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(SRC + path.sep)) continue;
      edges.push({ from: path.relative(SRC, file), to: path.relative(SRC, target), typeOnly: match[1] !== undefined });
    }
  }
  return edges;
}

const edges = importEdges();
/** The top folder of a file (`keys` for keys/store.ts), '' for a file directly in src/. */
const folder = (file: string) => (file.includes(path.sep) ? file.slice(0, file.indexOf(path.sep)) : '');
const isFeature = (file: string) => folder(file) !== '' && !NOT_FEATURES.has(folder(file));
const isRoutes = (file: string) => path.basename(file) === 'routes.ts';
const violations = (rule: (edge: Edge) => boolean) => edges.filter(rule).map(({ from, to }) => `${from} -> ${to}`);

test('the import scan sees the code base (a broken scan would pass every rule)', () => {
  assert.ok(edges.some(({ from, to }) => from === 'app.ts' && to === 'context.ts'));
  assert.ok(edges.some(({ from, to }) => isRoutes(from) && folder(to) === 'http'));
  assert.ok(edges.some(({ typeOnly }) => typeOnly));
  assert.ok(edges.some(({ from, to, typeOnly }) => from === path.join('storage', 'sqlite.ts') && to === path.join('keys', 'sqlite-store.ts') && !typeOnly));
});

test('no feature file but its routes.ts imports src/http/', () => {
  assert.deepEqual(
    violations(({ from, to }) => isFeature(from) && !isRoutes(from) && folder(to) === 'http'),
    [],
  );
});

test('the CLI never imports src/http/', () => {
  assert.deepEqual(
    violations(({ from, to }) => folder(from) === 'cli' && folder(to) === 'http'),
    [],
  );
});

test('no feature file imports src/context.ts: routes receive the services they use', () => {
  assert.deepEqual(
    violations(({ from, to }) => isFeature(from) && to === 'context.ts'),
    [],
  );
});

test('src/db/ holds the drivers and imports no feature: the stores are wired in src/storage/, above the features', () => {
  // Connections, migrations, locks and the change-log plumbing; what names a feature's store or tables lives in src/storage/.
  const driverFiles = new Set(['config-error.ts', 'native.ts']);
  assert.deepEqual(
    violations(({ from, to }) => folder(from) === 'db' && folder(to) !== 'db' && folder(to) !== 'shared' && !driverFiles.has(to)),
    [],
  );
  assert.ok(edges.some(({ from, to }) => folder(from) === 'storage' && to === path.join('db', 'database.ts')));
});

test('features take from src/storage/ only its types: the stores are wired above them, the writer threads included', () => {
  assert.deepEqual(
    violations(({ from, to, typeOnly }) => isFeature(from) && folder(to) === 'storage' && !typeOnly),
    [],
  );
});

test('src/http/ knows no feature, and src/shared/ depends on nothing but itself', () => {
  const edgeMay = new Set(['http', 'shared']);
  const edgeFiles = new Set(['log.ts', 'native.ts']);
  assert.deepEqual(
    violations(({ from, to }) => folder(from) === 'http' && !edgeMay.has(folder(to)) && !edgeFiles.has(to)),
    [],
  );
  assert.deepEqual(
    violations(({ from, to }) => folder(from) === 'shared' && folder(to) !== 'shared'),
    [],
  );
});

test("no feature reaches into another's store, routes or writer thread: it gets services, or names the interface it needs", () => {
  // A store's interface (store.ts) may be named in types; its implementations (sqlite-store.ts, …) are built by src/storage/ only.
  const isStore = (file: string) => /(^|-)store\.ts$/.test(path.basename(file));
  const internal = (to: string, typeOnly: boolean) =>
    isRoutes(to) || (isStore(to) && (!typeOnly || path.basename(to) !== 'store.ts')) || to.startsWith(path.join('events', 'writer') + path.sep);
  assert.deepEqual(
    violations(({ from, to, typeOnly }) => isFeature(from) && folder(from) !== folder(to) && internal(to, typeOnly)),
    [],
  );
});

test('the event path goes one way: analytics/ imports no experiments/ and of events/ only its shapes; events/ imports no experiments/', () => {
  // Writes go events → writer → analytics (the derived state and its fold); results go experiments → events' service → the
  // writer thread → analytics, whose answer flows back as a return value, never as an import (CONTRIBUTING.md, "Where things live").
  const eventShapes = new Set(['schema.ts', 'time.ts', 'variants.ts', 'event-row.ts'].map((file) => path.join('events', file)));
  assert.deepEqual(
    violations(({ from, to }) => folder(from) === 'analytics' && (folder(to) === 'experiments' || (folder(to) === 'events' && !eventShapes.has(to)))),
    [],
  );
  assert.deepEqual(
    violations(({ from, to }) => folder(from) === 'events' && folder(to) === 'experiments'),
    [],
  );
  assert.ok(edges.some(({ from, to }) => folder(from) === 'events' && folder(to) === 'analytics'));
});
