/**
 * `paywalld --version`: paywalld's own version and what it runs on, which
 * since several Node.js versions and uWS builds are possible is what a bug
 * report needs. It opens SQLite in memory to ask its version, but never loads
 * uWS (the build shown is the one `serve` would load).
 */
import { createRequire } from 'node:module';
import { openDatabase } from '../db/database.ts';
import { currentHost } from './host.ts';
import { chooseUwsBuild } from './uws-builds.ts';

declare const PAYWALLD_VERSIONS: { paywalld: string; betterSqlite3: string } | undefined;

/** Fixed by build.mjs in the bundle; read from package.json files when running from source. */
function packageVersions(): { paywalld: string; betterSqlite3: string } {
  if (typeof PAYWALLD_VERSIONS !== 'undefined') return PAYWALLD_VERSIONS;
  const require = createRequire(import.meta.url);
  return { paywalld: require('../../package.json').version, betterSqlite3: require('better-sqlite3/package.json').version };
}

export function versionReport(): string {
  const host = currentHost();
  const versions = packageVersions();
  const db = openDatabase(':memory:');
  const sqlite = db.prepare('select sqlite_version()').pluck().get() as string;
  db.close();
  const build = chooseUwsBuild(host);
  const libc = host.glibc ? `, glibc ${host.glibc}` : '';
  return [
    `paywalld ${versions.paywalld}`,
    `Node.js ${host.node} (ABI ${host.abi}, ${host.platform} ${host.arch}${libc})${host.executable ? ', embedded in this executable' : ''}`,
    build
      ? `uWebSockets.js ${build.version} (${build.package})`
      : 'uWebSockets.js none fits this runtime: serve cannot run here (see "Which Node.js" in docs/operations/node-versions.md)',
    `SQLite ${sqlite} (better-sqlite3 ${versions.betterSqlite3})`,
  ].join('\n');
}
