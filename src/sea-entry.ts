/**
 * The main script of the single executable that build-exe.mjs makes. The
 * executable carries the files `npm run build` put in dist/ (the bundle, the
 * event writer thread, the two native addons) as SEA assets. Addons and worker
 * threads can only be loaded from files, and a SEA's own `require` loads only
 * built-in modules, so this writes those files once to a cache directory and
 * runs the bundle from there with an ordinary `require`: it then finds
 * everything next to itself, exactly as in dist/.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { getAsset } from 'node:sea';

/** The asset build-exe.mjs writes beside the files: their names and a hash of them all, fixed at build time. */
interface Manifest {
  buildId: string;
  files: string[];
}

/** PAYWALLD_CACHE_DIR, else $XDG_CACHE_HOME/paywalld, else a per-user directory in the temp dir. */
function cacheRoot(uid: number | undefined): string {
  if (process.env.PAYWALLD_CACHE_DIR) return process.env.PAYWALLD_CACHE_DIR;
  if (process.env.XDG_CACHE_HOME) return path.join(process.env.XDG_CACHE_HOME, 'paywalld');
  return path.join(os.tmpdir(), `paywalld-${uid ?? 'user'}`);
}

/** Creates `dir` if needed and refuses it unless it is ours alone: we are about to run what lies there. */
function ownDirectory(dir: string, uid: number | undefined): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(dir);
  if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) {
    throw new Error(`refusing to run files from ${dir}: it must belong to this user and be writable by no one else (choose another with PAYWALLD_CACHE_DIR)`);
  }
}

function extract(dir: string, name: string): void {
  const file = path.join(dir, name);
  if (fs.existsSync(file)) return;
  // A unique temp name, then an atomic rename: a parallel first start sees no file or a whole one, never half of one.
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    fs.writeFileSync(temp, new Uint8Array(getAsset(name)), { mode: 0o755, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

function unpack(): string {
  const manifest = JSON.parse(getAsset('manifest.json', 'utf8')) as Manifest;
  const uid = process.getuid?.();
  const root = cacheRoot(uid);
  const dir = path.join(root, manifest.buildId);
  ownDirectory(root, uid);
  ownDirectory(dir, uid);
  for (const name of manifest.files) extract(dir, name);
  return path.join(dir, 'paywalld.js');
}

let bundle: string | undefined;
try {
  bundle = unpack();
} catch (error) {
  process.stderr.write(`paywalld: cannot unpack the executable: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
if (bundle) createRequire(bundle)(bundle);
