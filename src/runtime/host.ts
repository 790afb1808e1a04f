/**
 * What the native addons depend on in the running process: the Node.js ABI
 * (NODE_MODULE_VERSION, part of every addon's file name), the platform and
 * CPU, and on Linux the C library's version, which decides whether an addon
 * built on a newer distribution can load here.
 */
import { createRequire } from 'node:module';

export interface Host {
  /** process.version, e.g. "v24.11.0". */
  node: string;
  /** process.versions.modules, e.g. "137". */
  abi: string;
  platform: NodeJS.Platform;
  arch: string;
  /** The glibc this process runs on ("2.36"), undefined where there is none (musl, macOS, Windows). */
  glibc: string | undefined;
  /** Running inside the single executable, which embeds its Node.js. */
  executable: boolean;
}

/** What names an addon file, without the glibc (process.report takes milliseconds): every command needs this. */
export type Runtime = Pick<Host, 'node' | 'abi' | 'platform' | 'arch'>;

export const runtime: Runtime = { node: process.version, abi: process.versions.modules, platform: process.platform, arch: process.arch };

let host: Host | undefined;

/** node:sea exists from Node 20.12 on; older ones cannot be inside an executable. */
function insideExecutable(): boolean {
  try {
    return (createRequire(import.meta.url)('node:sea') as typeof import('node:sea')).isSea();
  } catch {
    return false;
  }
}

export function currentHost(): Host {
  if (host) return host;
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  host = {
    ...runtime,
    glibc: report.header?.glibcVersionRuntime,
    executable: insideExecutable(),
  };
  return host;
}

/** Compares dotted versions numerically: "2.38" > "2.9". */
export function atLeast(version: string, minimum: string): boolean {
  const have = version.split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < Math.max(have.length, need.length); i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The addon file name both uWS packages and dist/ use: uws_linux_x64_137.node. */
export function addonName(prefix: string, host: Runtime): string {
  return `${prefix}_${host.platform}_${host.arch}_${host.abi}.node`;
}
