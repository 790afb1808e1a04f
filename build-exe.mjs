// Builds dist/paywalld: a Node single executable application (SEA), that is a
// copy of this node binary carrying dist/paywalld.js as its main script and
// the two native addons as SEA assets, which src/native.ts writes to a cache
// directory on first start. It packs what `npm run build` made, so run that
// first (`npm run build:exe` does both).
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

const require = createRequire(import.meta.url);

// The placeholder that marks where node looks for an injected SEA blob.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dist');
const out = path.resolve(values.out ?? path.join(dist, 'paywalld'));
const main = path.join(dist, 'paywalld.js');
// The same names src/native.ts asks node:sea for.
const addons = [`uws_${process.platform}_${process.arch}_${process.versions.modules}.node`, 'better_sqlite3.node'];

// Other systems need more steps (codesign on macOS, a PE resource on Windows) that nobody has tried yet.
if (process.platform !== 'linux') throw new Error(`build-exe.mjs builds Linux executables only, not ${process.platform}`);
for (const file of [main, ...addons.map((name) => path.join(dist, name))]) {
  if (!fs.existsSync(file)) throw new Error(`${path.relative(process.cwd(), file)} is missing: run \`npm run build\` with this node (${process.version}) first`);
}

// The cache directory the addons are extracted to is named after their contents, so a
// rebuilt executable with the same addons reuses it and a changed addon never meets a stale file.
const hash = crypto.createHash('sha256');
for (const name of addons) hash.update(name).update('\0').update(fs.readFileSync(path.join(dist, name)));
const buildId = hash.digest('hex').slice(0, 16);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-sea-'));
try {
  fs.writeFileSync(path.join(work, 'build-id'), buildId);
  const blob = path.join(work, 'sea.blob');
  const config = {
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    // Measured: a code cache made no difference to start-up beyond noise (the bundle is small); a snapshot constrains start-up code.
    useSnapshot: false,
    useCodeCache: false,
    assets: {
      'build-id': path.join(work, 'build-id'),
      ...Object.fromEntries(addons.map((name) => [name, path.join(dist, name)])),
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
console.log(`built ${path.relative(process.cwd(), out)} (${megabytes} MB, node ${process.version}, addon build id ${buildId})`);
