/**
 * Loads the two native addons (uWebSockets.js and better-sqlite3) by path with
 * process.dlopen. Both packages locate their addon with a dynamic require that
 * breaks inside an esbuild bundle, and uWS then silently falls back to a slow
 * pure-Node server; loading the files ourselves makes a missing addon a loud
 * start-up error instead.
 *
 * Each addon is built for one Node.js ABI (NODE_MODULE_VERSION), so the files
 * carry it in their names and the running process picks its own:
 *  - uWS: src/runtime/uws-builds.ts chooses the build for the ABI and glibc;
 *    when none fits, loadUws throws the message that says what would work.
 *    Only `serve` calls it: every other command runs without uWS.
 *  - better-sqlite3: from source, node_modules holds the build `npm ci` made
 *    for its Node.js, and runtimes/ those runtimes.mjs made for other ones.
 *
 * In the bundle (build.mjs defines PAYWALLD_BUNDLED) the addons sit next to
 * dist/paywalld.js under those names. The single executable runs that same
 * bundle from a cache directory holding the same files (src/sea-entry.ts).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addonName, currentHost, type Host, type Runtime, runtime } from './runtime/host.ts';
import { chooseUwsBuild, noUwsMessage, type UwsBuild } from './runtime/uws-builds.ts';

declare const PAYWALLD_BUNDLED: boolean | undefined;

const bundled = typeof PAYWALLD_BUNDLED !== 'undefined' && PAYWALLD_BUNDLED;
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const loaded = new Map<string, unknown>();

function dlopen(file: string): unknown {
  const cached = loaded.get(file);
  if (cached) return cached;
  const module = { exports: {} as unknown };
  try {
    process.dlopen(module, file);
  } catch (error) {
    throw new Error(`cannot load native addon ${file}: ${(error as Error).message}`);
  }
  loaded.set(file, module.exports);
  return module.exports;
}

/** The bundle was built without this runtime's addon: say how to build one rather than fail in dlopen. */
function missingFromBundle(what: string, file: string, host: Runtime): Error {
  const major = host.node.slice(1).split('.')[0];
  return new Error(
    [
      `${path.dirname(file)} has no ${what} addon for Node.js ${host.node} (${path.basename(file)}).`,
      `Build it for this Node.js: run \`node runtimes.mjs ${major}\`, then \`npm run build\`, in the source tree.`,
      'See "Which Node.js" in docs/operations/node-versions.md.',
    ].join('\n'),
  );
}

/** The addon's exports; its type declarations lack the listen-options constant that v20.30 exports. */
type Uws = typeof import('uWebSockets.js') & { LIBUS_LISTEN_EXCLUSIVE_PORT: number };

/** Where the chosen build's addon for this host lies: beside the bundle, or in its package under the repository's node_modules. */
function uwsAddonPath(build: UwsBuild, host: Host): string {
  const name = addonName('uws', host);
  return bundled ? path.join(here, name) : path.join(here, '..', 'node_modules', build.directory, name);
}

export function loadUws(): Uws {
  const host = currentHost();
  const build = chooseUwsBuild(host);
  if (!build) throw new Error(noUwsMessage(host));
  const file = uwsAddonPath(build, host);
  if (!fs.existsSync(file)) throw bundled ? missingFromBundle('uWebSockets.js', file, host) : new Error(noUwsMessage(host));
  // uWS 20.57 (the build for Node 22 and up) answers 431 to a request head over UWS_HTTP_MAX_HEADERS_SIZE,
  // 4 KiB unless set, where 20.30 took 120 KB in one read. Resolve queries carry attributes of any length
  // (test/paywalls/regex.test.ts sends 10,000 characters), so it gets 64 KiB unless the variable is set.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(64 * 1024);
  return dlopen(file) as Uws;
}

/** The better-sqlite3 addon file for this Node.js: beside the bundle, else one runtimes.mjs built, else the one npm built. */
export function sqliteAddonPath(): string {
  const name = addonName('better_sqlite3', runtime);
  if (bundled) {
    const file = path.join(here, name);
    if (!fs.existsSync(file)) throw missingFromBundle('better-sqlite3', file, runtime);
    return file;
  }
  const { version } = require('better-sqlite3/package.json') as { version: string };
  const other = path.join(here, '..', 'runtimes', `better-sqlite3-${version}`, name);
  return fs.existsSync(other) ? other : require.resolve('better-sqlite3/build/Release/better_sqlite3.node');
}

/** The better-sqlite3 addon object, handed to `new Database(file, { nativeBinding })`. */
export function loadSqliteAddon(): object {
  return dlopen(sqliteAddonPath()) as object;
}
