/**
 * Loads the two native addons (uWebSockets.js and better-sqlite3) by path with
 * process.dlopen. Both packages locate their addon with a dynamic require that
 * breaks inside an esbuild bundle, and uWS then silently falls back to a slow
 * pure-Node server; loading the files ourselves makes a missing addon a loud
 * start-up error instead.
 *
 * From source the addons come from node_modules; in the bundle (build.mjs
 * defines PAYWALLD_BUNDLED) they sit next to dist/paywalld.js. The single
 * executable runs that same bundle from a cache directory holding the same
 * files (src/sea-entry.ts).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

declare const PAYWALLD_BUNDLED: boolean | undefined;

const bundled = typeof PAYWALLD_BUNDLED !== 'undefined' && PAYWALLD_BUNDLED;

/** File names of the addons, as build.mjs copies them next to the bundle. */
export const UWS_ADDON = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
export const SQLITE_ADDON = 'better_sqlite3.node';

function addonPath(fileName: string, packagePath: string): string {
  if (bundled) return path.join(path.dirname(fileURLToPath(import.meta.url)), fileName);
  return createRequire(import.meta.url).resolve(packagePath);
}

const loaded = new Map<string, unknown>();

function loadAddon(fileName: string, packagePath: string): unknown {
  const cached = loaded.get(fileName);
  if (cached) return cached;
  const file = addonPath(fileName, packagePath);
  const module = { exports: {} as unknown };
  try {
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
