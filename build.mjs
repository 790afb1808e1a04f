// Bundles the server into dist/paywalld.js (CommonJS, so the same bundle can
// later be embedded in a Node single executable) and copies the native addons
// next to it, named by Node.js ABI; src/native.ts loads the ones of the
// running Node.js from there when bundled. Every ABI with a better-sqlite3
// build at hand gets its addons: the one npm built, and those runtimes.mjs
// built for other runtimes (so `node runtimes.mjs 24 && npm run build` makes
// a dist/ that Node.js 20 and 24 both run).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { addonName, sqliteAddons, uwsAddon } from './runtimes.mjs';
import { buildUi } from './src/dashboard/build-ui.mjs';

const require = createRequire(import.meta.url);
const out = path.resolve('dist');
// What `paywalld --version` reports (src/runtime/versions.ts).
const versions = { paywalld: require('./package.json').version, betterSqlite3: require('better-sqlite3/package.json').version };

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const options = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  define: { PAYWALLD_BUNDLED: 'true', PAYWALLD_VERSIONS: JSON.stringify(versions), 'import.meta.url': 'PAYWALLD_IMPORT_META_URL' },
  banner: { js: "const PAYWALLD_IMPORT_META_URL = require('node:url').pathToFileURL(__filename).href;" },
};
// The dashboard is built first and embedded: src/dashboard/files.ts is swapped for a module holding its files.
const dashboard = await buildUi();
let embedded = false;
const embedDashboard = {
  name: 'embed-dashboard',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]src[\\/]dashboard[\\/]files\.ts$/ }, () => ({
      contents: (embedded = true) && `const files = ${JSON.stringify(dashboard)};\nexport async function loadDashboardFiles() { return files; }\n`,
      loader: 'js',
    }));
  },
};
await build({ ...options, entryPoints: ['src/main.ts'], outfile: path.join(out, 'paywalld.js'), plugins: [embedDashboard] });
// Without the swap the bundle would build the dashboard at run time with esbuild, which a deployment does not have.
if (!embedded) throw new Error('build.mjs: src/dashboard/files.ts was not found to embed the dashboard in the bundle');
// The event writer is a worker thread, and a worker starts from a file: src/events/writer/writer.ts looks for this one.
await build({ ...options, entryPoints: ['src/storage/sqlite-writer-thread.ts'], outfile: path.join(out, 'events-writer.js') });
await build({ ...options, entryPoints: ['src/storage/postgres-writer-thread.ts'], outfile: path.join(out, 'events-writer-postgres.js') });

// The bundle is CommonJS wherever dist/ is copied, whatever package.json sits above it.
fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
const addons = [];
function copyAddon(from, name) {
  fs.copyFileSync(from, path.join(out, name));
  addons.push(name);
}
for (const [abi, sqlite] of sqliteAddons()) {
  copyAddon(sqlite, addonName('better_sqlite3', abi));
  // An ABI no uWS build has (Node 18, 26…) still runs every command but serve, which then says why it cannot.
  const uws = uwsAddon(abi);
  if (uws) copyAddon(uws, addonName('uws', abi));
}
fs.chmodSync(path.join(out, 'paywalld.js'), 0o755);
console.log(
  `built ${path.relative(process.cwd(), path.join(out, 'paywalld.js'))} (with the dashboard: ${dashboard.map((file) => file.name).join(', ')}) and events-writer.js, events-writer-postgres.js with ${addons.join(', ')}`,
);

// The client for apps (client/) and the renderer (render/): each one ES module with no imports, and its declarations.
await buildPackage('client', 'one ES module with no imports, for browsers, Node, React Native, Deno and Bun');
await buildPackage('render', 'draws a resolve answer in a web page, or gives it as data to a native view');

async function buildPackage(folder, description) {
  const target = path.join(out, folder);
  await build({
    entryPoints: [`${folder}/index.ts`],
    outfile: path.join(target, 'index.js'),
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2020',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    // The client decides placements offline with the server's audience conditions, on the platform's RegExp (client/regex.ts).
    ...(folder === 'client' ? { alias: { re2js: './client/regex.ts' } } : {}),
  });
  // A name and exports, so that `npm install path/to/dist/<folder>` makes it a dependency of an app.
  const manifest = {
    name: `@paywalld/${folder}`,
    version: versions.paywalld,
    description,
    license: 'MIT',
    type: 'module',
    exports: { '.': { types: './index.d.ts', default: './index.js' } },
    types: './index.d.ts',
    sideEffects: false,
  };
  fs.writeFileSync(path.join(target, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeDeclarations(folder, target);
  console.log(`built ${path.relative(process.cwd(), target)}/index.js and its declarations`);
}

/**
 * tsc writes declarations for the whole program; the package needs those
 * index.d.ts reaches, with import paths ending in .js. Reaching a file
 * outside the package's folder fails the build: the declarations must stand alone.
 */
function writeDeclarations(folder, target) {
  const scratch = fs.mkdtempSync(path.join(out, '.declarations-'));
  try {
    execFileSync(
      process.execPath,
      [path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc'), '-p', `${folder}/tsconfig.json`, '--outDir', scratch],
      { stdio: 'inherit' },
    );
    const root = path.join(scratch, folder);
    const pending = ['index.d.ts'];
    const written = new Set();
    while (pending.length > 0) {
      const file = pending.pop();
      if (written.has(file)) continue;
      written.add(file);
      const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'");
      for (const [, specifier] of text.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
        const next = path.normalize(path.join(path.dirname(file), `${specifier}.d.ts`));
        if (next.startsWith('..')) throw new Error(`${folder} declarations reach outside ${folder}/: ${file} imports ${specifier}`);
        pending.push(next);
      }
      fs.writeFileSync(path.join(target, file), text);
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
