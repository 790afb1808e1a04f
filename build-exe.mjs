// Builds dist/paywalld: a Node single executable application (SEA), that is a
// copy of a node binary carrying the bundle `npm run build` put in dist/ (and
// the event writer thread) plus the two native addons for that node's ABI as
// SEA assets, and src/sea-entry.ts as its main script, which writes those
// files to a cache directory on first start and runs the bundle from there.
// Run `npm run build` first (`npm run build:exe` does both).
//
//   node build-exe.mjs [--out FILE] [--node VERSION|PATH]
//
// --out defaults to dist/paywalld. --node is the Node.js to embed: by default
// the node running this script; a version (24, 24.11.0) installs the official
// binary from the npm package node-<platform>-<arch> and compiles
// better-sqlite3 for it, both under runtimes/ (runtimes.mjs); a path takes
// that binary, for which runtimes.mjs must have built better-sqlite3 already.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { addonName, describeNode, ensureRuntime, ensureSqliteAddon, sqliteAddons, uwsAddon } from './runtimes.mjs';

const require = createRequire(import.meta.url);
// The placeholder that marks where node looks for an injected SEA blob.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const { values } = parseArgs({ options: { out: { type: 'string' }, node: { type: 'string' } } });
const root = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(root, 'dist');
const out = path.resolve(values.out ?? path.join(dist, 'paywalld'));

// Other systems need more steps (codesign on macOS, a PE resource on Windows) that nobody has tried yet.
if (process.platform !== 'linux') throw new Error(`build-exe.mjs builds Linux executables only, not ${process.platform}`);

/** The node to embed and the better-sqlite3 addon built for it. */
function runtimeToEmbed(spec) {
  if (spec === undefined)
    return { node: process.execPath, version: process.version, abi: process.versions.modules, sqlite: sqliteAddons().get(process.versions.modules) };
  if (!spec.includes(path.sep)) {
    const runtime = ensureRuntime(spec);
    return { ...runtime, sqlite: ensureSqliteAddon(runtime) };
  }
  const runtime = describeNode(path.resolve(spec));
  return { ...runtime, sqlite: sqliteAddons().get(runtime.abi) };
}
const runtime = runtimeToEmbed(values.node);
const [major, minor] = runtime.version.slice(1).split('.').map(Number);
if (major === 20 && minor < 12) throw new Error(`SEA assets need Node.js 20.12 or newer, not ${runtime.version}`);
if (!runtime.sqlite) throw new Error(`no better-sqlite3 addon for Node.js ${runtime.version} (ABI ${runtime.abi}): run \`node runtimes.mjs ${major}\` first`);
const uws = uwsAddon(runtime.abi);
if (!uws)
  throw new Error(
    `no uWebSockets.js build paywalld depends on has an addon for Node.js ${runtime.version} (ABI ${runtime.abi}) on ${process.platform} ${process.arch}`,
  );

// The bundle from dist/ (source maps and an executable built earlier stay behind), and the addons of the embedded node's ABI only.
const bundleFiles = fs.existsSync(dist) ? fs.readdirSync(dist).filter((name) => /\.(js|json)$/.test(name)) : [];
for (const name of ['paywalld.js', 'events-writer.js', 'events-writer-postgres.js', 'package.json']) {
  if (!bundleFiles.includes(name)) throw new Error(`dist/${name} is missing: run \`npm run build\` first`);
}
const assetFiles = new Map([
  ...bundleFiles.map((name) => [name, path.join(dist, name)]),
  [addonName('better_sqlite3', runtime.abi), runtime.sqlite],
  [addonName('uws', runtime.abi), uws],
]);
const files = [...assetFiles.keys()].sort();

// Names the cache directory: a rebuilt executable with the same files reuses it, a changed file never meets a stale copy.
const hash = crypto.createHash('sha256');
for (const name of files)
  hash
    .update(name)
    .update('\0')
    .update(fs.readFileSync(assetFiles.get(name)))
    .update('\0');
const buildId = hash.digest('hex').slice(0, 16);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-sea-'));
try {
  const entry = path.join(work, 'sea-entry.js');
  await build({
    entryPoints: [path.join(root, 'src/sea-entry.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.writeFileSync(path.join(work, 'manifest.json'), JSON.stringify({ buildId, files }));
  const blob = path.join(work, 'sea.blob');
  const config = {
    main: entry,
    output: blob,
    disableExperimentalSEAWarning: true,
    // The entry script only unpacks and requires the bundle from disk: a snapshot or code cache has nothing to speed up.
    useSnapshot: false,
    useCodeCache: false,
    assets: {
      'manifest.json': path.join(work, 'manifest.json'),
      ...Object.fromEntries(assetFiles),
    },
  };
  fs.writeFileSync(path.join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
  // The blob's format belongs to the node that will run it.
  run(runtime.node, ['--experimental-sea-config', path.join(work, 'sea-config.json')]);

  // Assembled under a temp name beside its final one and renamed, so `out` is never a half-written executable.
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const staged = `${out}.${process.pid}.tmp`;
  fs.copyFileSync(runtime.node, staged);
  try {
    fs.chmodSync(staged, 0o755);
    run(process.execPath, [require.resolve('postject/dist/cli.js'), staged, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE, '--overwrite']);
    fs.renameSync(staged, out);
  } finally {
    fs.rmSync(staged, { force: true });
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

/** Runs `node` with `args`, showing its chatter (postject warns about every ELF note it skips) only if it fails. */
function run(node, args) {
  try {
    execFileSync(node, args, { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${path.basename(args[0])} failed:\n${error.stdout}${error.stderr}`);
  }
}

const megabytes = (fs.statSync(out).size / 1024 / 1024).toFixed(0);
console.log(`built ${path.relative(process.cwd(), out)} (${megabytes} MB, Node.js ${runtime.version}, build id ${buildId}: ${files.join(', ')})`);
