/**
 * The uWebSockets.js builds paywalld depends on, and which one fits the
 * running process. No single build covers today's Node.js versions:
 *  - @trufflesuite/uws-js-unofficial 20.30.0 (the `uWebSockets.js` alias),
 *    the build paywalld was written and benchmarked with, has Linux addons
 *    for Node 16, 18 and 20 only; they need glibc 2.27 (x64, arm64) or 2.28
 *    (arm), so uws-builds.json says 2.28;
 *  - @btc-vision/uwebsockets.js 20.57.0 has addons for Node 20, 22, 24 and
 *    25, but they were built against glibc 2.38 (they call the C23 symbols
 *    __isoc23_sscanf, __isoc23_strtol and __isoc23_strtoul) and do not load
 *    on older systems such as Debian 12 or Ubuntu 22.04.
 * The first build that has the running ABI and whose glibc minimum the host
 * meets wins; so Node 20 keeps the trufflesuite build everywhere.
 *
 * The facts live in uws-builds.json because build.mjs, which runs without
 * TypeScript, copies the same addons into dist/. test/runtime checks them
 * against the installed packages.
 */

import { atLeast, type Host } from './host.ts';
import builds from './uws-builds.json' with { type: 'json' };

export interface UwsBuild {
  package: string;
  version: string;
  /** Where its addons lie, as a path under node_modules. */
  directory: string;
  /** Node.js ABI (NODE_MODULE_VERSION) → the Node.js major it belongs to. */
  node: Record<string, string>;
  /** The oldest glibc its Linux addons load on. */
  glibc: string;
  /** Which distributions ship that glibc, for the message when none fits. */
  distributions: string;
}

// The JSON infers each entry's own keys; UwsBuild is the shape test/runtime checks them against.
export const UWS_BUILDS: readonly UwsBuild[] = builds as unknown as UwsBuild[];

/** The build to load on `host`, or undefined when none fits. Only Linux has a glibc to check. */
export function chooseUwsBuild(host: Host): UwsBuild | undefined {
  return UWS_BUILDS.find((build) => {
    if (!(host.abi in build.node)) return false;
    if (host.platform !== 'linux') return true;
    return host.glibc !== undefined && atLeast(host.glibc, build.glibc);
  });
}

function list(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * Why `serve` cannot start on `host` and what would work. Printed instead of
 * a stack trace; commands that serve no HTTP do not need uWS and still work.
 */
export function noUwsMessage(host: Host): string {
  const libc = host.platform !== 'linux' ? host.platform : host.glibc ? `glibc ${host.glibc}` : 'a Linux without glibc (musl?)';
  const options = UWS_BUILDS.map((build) => `Node.js ${list(Object.values(build.node))} on glibc ${build.glibc}+ (${build.distributions})`);
  return [
    `cannot serve HTTP on Node.js ${host.node} with ${libc}: no uWebSockets.js addon fits (ABI ${host.abi}, ${host.platform} ${host.arch}).`,
    host.executable
      ? `What works: an executable built with one of these (npm run build:exe -- --node 20): ${options.join('; ')}.`
      : `What works: ${options.join('; ')}; or the single executable (npm run build:exe), which carries its own Node.js.`,
    'Every command that serves no HTTP (projects, keys, backup, migrate, ...) works on this runtime.',
    'See "Which Node.js" in docs/operations/node-versions.md.',
  ].join('\n');
}
