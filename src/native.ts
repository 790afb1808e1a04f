/**
 * Loads the two native addons (uWebSockets.js and better-sqlite3) by path with
 * process.dlopen. Both packages locate their addon with a dynamic require that
 * breaks inside an esbuild bundle, and uWS then silently falls back to a slow
 * pure-Node server; loading the files ourselves makes a missing addon a loud
 * start-up error instead.
 *
 * Where the addon files come from depends on how paywalld runs:
 *  - source (tsx): from node_modules;
 *  - bundled (build.mjs defines PAYWALLD_BUNDLED): next to dist/paywalld.js;
 *  - sea (the single executable dist/paywalld that build-exe.mjs makes): from
 *    its SEA assets, written once to a cache directory because dlopen needs a
 *    file. Inside the executable `require` loads only built-in modules, hence
 *    node:sea and no package lookups.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { getAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

declare const PAYWALLD_BUNDLED: boolean | undefined;

const mode: 'sea' | 'bundled' | 'source' = isSea() ? 'sea' : typeof PAYWALLD_BUNDLED !== 'undefined' && PAYWALLD_BUNDLED ? 'bundled' : 'source';

/** File names of the addons, as build.mjs copies them next to the bundle and build-exe.mjs names the SEA assets. */
export const UWS_ADDON = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
export const SQLITE_ADDON = 'better_sqlite3.node';
/** The SEA asset holding the id build-exe.mjs derived from the addons' contents, so start-up never hashes them. */
export const BUILD_ID_ASSET = 'build-id';

function addonPath(fileName: string, packagePath: string): string {
  switch (mode) {
    case 'sea':
      return extractAsset(seaCacheDir(), fileName);
    case 'bundled':
      return path.join(path.dirname(fileURLToPath(import.meta.url)), fileName);
    case 'source':
      return createRequire(import.meta.url).resolve(packagePath);
  }
}

let cacheDir: string | undefined;

/** `<root>/<build id>`, the root being PAYWALLD_CACHE_DIR, else $XDG_CACHE_HOME/paywalld, else a per-user directory in the temp dir. */
function seaCacheDir(): string {
  if (cacheDir) return cacheDir;
  const uid = process.getuid?.();
  const root =
    process.env.PAYWALLD_CACHE_DIR ||
    (process.env.XDG_CACHE_HOME ? path.join(process.env.XDG_CACHE_HOME, 'paywalld') : path.join(os.tmpdir(), `paywalld-${uid ?? 'user'}`));
  const dir = path.join(root, getAsset(BUILD_ID_ASSET, 'utf8'));
  // We are about to execute what lies there: in a shared temp dir another user could have planted it.
  for (const owned of [root, dir]) {
    fs.mkdirSync(owned, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(owned);
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) {
      throw new Error(`refusing to load native addons from ${owned}: it must belong to this user and be writable by no one else (choose another with PAYWALLD_CACHE_DIR)`);
    }
  }
  return (cacheDir = dir);
}

function extractAsset(dir: string, name: string): string {
  const file = path.join(dir, name);
  if (fs.existsSync(file)) return file;
  // A unique temp name, then an atomic rename: a parallel first start sees no file or a whole one, never half of one.
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    fs.writeFileSync(temp, new Uint8Array(getAsset(name)), { mode: 0o755, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return file;
}

const loaded = new Map<string, unknown>();

function loadAddon(fileName: string, packagePath: string): unknown {
  const cached = loaded.get(fileName);
  if (cached) return cached;
  let file = fileName;
  const module = { exports: {} as unknown };
  try {
    file = addonPath(fileName, packagePath);
    process.dlopen(module, file);
  } catch (error) {
    throw new Error(`cannot load native addon ${file}: ${(error as Error).message}`);
  }
  loaded.set(fileName, module.exports);
  return module.exports;
}

/** The addon's exports; its type declarations lack the listen-options constant that v20.30 exports. */
export type Uws = typeof import('uWebSockets.js') & { LIBUS_LISTEN_EXCLUSIVE_PORT: number };

export function loadUws(): Uws {
  return loadAddon(UWS_ADDON, `uWebSockets.js/binaries/${UWS_ADDON}`) as Uws;
}

/** The better-sqlite3 addon object, handed to `new Database(file, { nativeBinding })`. */
export function loadSqliteAddon(): object {
  return loadAddon(SQLITE_ADDON, 'better-sqlite3/build/Release/better_sqlite3.node') as object;
}
