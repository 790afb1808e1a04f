// Builds dist/paywalld: a Node single executable application (SEA), that is a
// copy of this node binary carrying what `npm run build` put in dist/ (the
// CommonJS bundle, the event writer thread, the two native addons) as SEA
// assets, and src/sea-entry.ts as its main script, which writes those files
// to a cache directory on first start and runs the bundle from there. Run
// `npm run build` first (`npm run build:exe` does both).
//
//   node build-exe.mjs [--out FILE]     (default dist/paywalld)
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
// The placeholder that marks where node looks for an injected SEA blob.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const root = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(root, 'dist');
const out = path.resolve(values.out ?? path.join(dist, 'paywalld'));

// Other systems need more steps (codesign on macOS, a PE resource on Windows) that nobody has tried yet.
if (process.platform !== 'linux') throw new Error(`build-exe.mjs builds Linux executables only, not ${process.platform}`);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major === 20 && minor < 12) throw new Error(`SEA assets need Node.js 20.12 or newer, not ${process.version}`);

// Everything the bundle loads from beside itself; source maps stay behind, and so does an executable built earlier.
const uwsAddon = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
const files = fs.existsSync(dist) ? fs.readdirSync(dist).filter((name) => /\.(js|json|node)$/.test(name)).sort() : [];
for (const name of ['paywalld.js', 'package.json', uwsAddon, 'better_sqlite3.node']) {
  if (!files.includes(name)) throw new Error(`dist/${name} is missing: run \`npm run build\` with this node (${process.version}) first`);
}

// Names the cache directory: a rebuilt executable with the same files reuses it, a changed file never meets a stale copy.
const hash = crypto.createHash('sha256');
for (const name of files) hash.update(name).update('\0').update(fs.readFileSync(path.join(dist, name))).update('\0');
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
      ...Object.fromEntries(files.map((name) => [name, path.join(dist, name)])),
    },
  };
  fs.writeFileSync(path.join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
  run(['--experimental-sea-config', path.join(work, 'sea-config.json')]);

  // Assembled under a temp name beside its final one and renamed, so `out` is never a half-written executable.
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const staged = `${out}.${process.pid}.tmp`;
  fs.copyFileSync(process.execPath, staged);
  try {
    fs.chmodSync(staged, 0o755);
    run([require.resolve('postject/dist/cli.js'), staged, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE, '--overwrite']);
    fs.renameSync(staged, out);
  } finally {
    fs.rmSync(staged, { force: true });
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

/** Runs node with `args`, showing its chatter (postject warns about every ELF note it skips) only if it fails. */
function run(args) {
  try {
    execFileSync(process.execPath, args, { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${path.basename(args[0])} failed:\n${error.stdout}${error.stderr}`);
  }
}

const megabytes = (fs.statSync(out).size / 1024 / 1024).toFixed(0);
console.log(`built ${path.relative(process.cwd(), out)} (${megabytes} MB, node ${process.version}, build id ${buildId}: ${files.join(', ')})`);
