/**
 * The uWS build table against the packages installed, and the choice it
 * makes for hosts this machine is not (other Node.js versions, other glibcs).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { atLeast, type Host } from '../../src/runtime/host.ts';
import { chooseUwsBuild, noUwsMessage, UWS_BUILDS } from '../../src/runtime/uws-builds.ts';

const NODE_MODULES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules');

function host(abi: string, glibc: string | undefined, extra: Partial<Host> = {}): Host {
  return { node: 'v24.11.0', abi, platform: 'linux', arch: 'x64', glibc, executable: false, ...extra };
}

/** The package that owns a build's addon directory. */
function packageJson(directory: string): { name: string; version: string } {
  for (let dir = path.join(NODE_MODULES, directory); dir !== NODE_MODULES; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  }
  throw new Error(`no package.json above ${directory}`);
}

test('each build names the package and version installed, and has a Linux addon for each ABI it lists', () => {
  for (const build of UWS_BUILDS) {
    const { name, version } = packageJson(build.directory);
    assert.deepEqual({ name, version }, { name: build.package, version: build.version });
    for (const abi of Object.keys(build.node)) {
      for (const arch of ['x64', 'arm64']) {
        assert.ok(fs.existsSync(path.join(NODE_MODULES, build.directory, `uws_linux_${arch}_${abi}.node`)), `${build.package}: linux ${arch} ABI ${abi}`);
      }
    }
  }
});

test('the glibc each build asks for is the newest symbol version its Linux addons need', () => {
  for (const build of UWS_BUILDS) {
    let newest = '0';
    for (const abi of Object.keys(build.node)) {
      for (const arch of ['x64', 'arm64', 'arm']) {
        const file = path.join(NODE_MODULES, build.directory, `uws_linux_${arch}_${abi}.node`);
        if (!fs.existsSync(file)) continue;
        // Symbol versions are plain strings in .dynstr: GLIBC_2.38 and the like.
        for (const [, version] of fs
          .readFileSync(file)
          .toString('latin1')
          .matchAll(/GLIBC_(\d+\.\d+)/g)) {
          if (!atLeast(newest, version!)) newest = version!;
        }
      }
    }
    assert.equal(build.glibc, newest, build.package);
  }
});

test('Node 20 gets the trufflesuite build on any glibc it supports, Node 22, 24 and 25 the btc-vision build from glibc 2.38 on', () => {
  const chosen = (h: Host) => chooseUwsBuild(h)?.package;
  assert.equal(chosen(host('115', '2.36')), '@trufflesuite/uws-js-unofficial');
  assert.equal(chosen(host('115', '2.41')), '@trufflesuite/uws-js-unofficial');
  assert.equal(chosen(host('115', '2.28')), '@trufflesuite/uws-js-unofficial');
  assert.equal(chosen(host('115', '2.27')), undefined);
  for (const abi of ['127', '137', '141']) {
    assert.equal(chosen(host(abi, '2.38')), '@btc-vision/uwebsockets.js');
    assert.equal(chosen(host(abi, '2.41')), '@btc-vision/uwebsockets.js');
    assert.equal(chosen(host(abi, '2.36')), undefined);
    assert.equal(chosen(host(abi, '2.35')), undefined);
  }
  // Without glibc (Alpine's musl) no Linux addon loads; elsewhere there is no glibc to ask about.
  assert.equal(chosen(host('137', undefined)), undefined);
  assert.equal(chosen(host('137', undefined, { platform: 'darwin', arch: 'arm64' })), '@btc-vision/uwebsockets.js');
  // Node 18 (108) is past its end of life and outside engines; Node 26 (147) has no build yet.
  assert.equal(chosen(host('108', '2.36')), undefined);
  assert.equal(chosen(host('147', '2.41')), undefined);
});

test('glibc versions compare by number, not as text', () => {
  assert.ok(atLeast('2.38', '2.38'));
  assert.ok(atLeast('2.38', '2.9'));
  assert.ok(atLeast('3.0', '2.38'));
  assert.ok(!atLeast('2.9', '2.38'));
  assert.ok(!atLeast('2.37', '2.38'));
  assert.ok(atLeast('2.38.1', '2.38'));
});

test('the message when no build fits names the runtime and glibc, what would work, and the README section', () => {
  assert.equal(
    noUwsMessage(host('137', '2.36')),
    [
      'cannot serve HTTP on Node.js v24.11.0 with glibc 2.36: no uWebSockets.js addon fits (ABI 137, linux x64).',
      'What works: Node.js 20 on glibc 2.28+ (Debian 10, Ubuntu 20.04, RHEL 8 and newer); Node.js 22, 24 or 25 on glibc 2.38+ (Debian 13, Ubuntu 24.04, Fedora 39, RHEL 10 and newer); or the single executable (npm run build:exe), which carries its own Node.js.',
      'Every command that serves no HTTP (projects, keys, backup, migrate, ...) works on this runtime.',
      'See "Which Node.js" in docs/operations/node-versions.md.',
    ].join('\n'),
  );
  assert.match(noUwsMessage(host('137', undefined)), /^cannot serve HTTP on Node\.js v24\.11\.0 with a Linux without glibc \(musl\?\): /);
  // Inside an executable the way out is another executable, built with a runtime that fits.
  assert.match(
    noUwsMessage(host('137', '2.36', { executable: true })).split('\n')[1]!,
    /^What works: an executable built with one of these \(npm run build:exe -- --node 20\): Node\.js 20 on glibc 2\.28\+/,
  );
});
