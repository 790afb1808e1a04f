/**
 * `paywalld export DIR` writes file names made of the ids a target lists, so
 * a target it should not trust (a server at a URL someone handed over, a
 * database file from elsewhere) must not make it write outside DIR.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase } from '../../src/db/database.ts';
import { DIST, runCli } from '../helpers/cli.ts';
import { EXAMPLE, exampleCopy, snapshotFiles } from '../helpers/config-dir.ts';
import { tempDir } from '../helpers/temp.ts';

const HOSTILE = '../../package';
const PACKAGE = '{"scripts":{"postinstall":"echo mine"}}\n';

/**
 * A hostile management API on a real port: the lists and details a paywalld
 * answers, with a paywall id no paywalld accepts. A real paywalld cannot be
 * made to list it (ids are checked at every write, and its router refuses the
 * id in a path), and the threat is exactly a server that is not one: export
 * must not trust what it is told.
 */
async function hostileServer(t: import('node:test').TestContext): Promise<string> {
  const document = JSON.parse(fs.readFileSync(path.join(EXAMPLE, 'paywalls', 'winback.json'), 'utf8'));
  const server = http.createServer((req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', etag: '"1"' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/api/products') return send({ products: [] });
    if (req.url === '/api/paywalls') return send({ paywalls: [{ id: HOSTILE }] });
    if (req.url === `/api/paywalls/${encodeURIComponent(HOSTILE)}`) return send({ status: 'live', revision: 1, live_revision: 1, document });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The CLI in a child process, without blocking this process's event loop (which serves the hostile server). */
async function exportFrom(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [DIST, 'export', ...args], { env: { ...process.env, PAYWALLD_KEY: 'pwk_secret_anything' } });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

test('export --server refuses a listed paywall id that breaks the id rule (../../package) and writes nothing', async (t) => {
  const url = await hostileServer(t);
  const project = tempDir(t);
  fs.writeFileSync(path.join(project, 'package.json'), PACKAGE);
  const dir = path.join(project, 'config', 'paywalld');
  const result = await exportFrom([dir, '--server', url]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /lists the id "\.\.\/\.\.\/package", which is not 1 to 64 letters, digits.*nothing was exported/);
  assert.equal(fs.readFileSync(path.join(project, 'package.json'), 'utf8'), PACKAGE);
  assert.deepEqual(snapshotFiles(project), { 'package.json': PACKAGE });
});

test('export --db refuses a database that holds a paywall id breaking the id rule', async (t) => {
  const project = tempDir(t);
  fs.writeFileSync(path.join(project, 'package.json'), PACKAGE);
  const db = path.join(project, 'data', 'paywalld.db');
  fs.mkdirSync(path.dirname(db));
  assert.equal((await runCli(['projects', 'create', 'acme', '--db', db])).status, 0);
  assert.equal((await runCli(['apply', exampleCopy(t), '--db', db, '--publish'])).status, 0);
  // A file written by something else than paywalld: the id was never checked.
  const raw = openDatabase(db);
  raw.pragma('foreign_keys = OFF');
  for (const table of ['paywall_revisions', 'paywall_phases']) raw.prepare(`UPDATE ${table} SET paywall_id = ? WHERE paywall_id = 'winback'`).run(HOSTILE);
  raw.prepare(`UPDATE paywalls SET id = ? WHERE id = 'winback'`).run(HOSTILE);
  raw.close();

  const dir = path.join(project, 'config', 'paywalld');
  const result = await runCli(['export', dir, '--db', db]);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /lists the id "\.\.\/\.\.\/package"/);
  assert.equal(fs.readFileSync(path.join(project, 'package.json'), 'utf8'), PACKAGE);
  assert.equal(fs.existsSync(path.join(project, 'config')), false);
});

test('export never writes through a symbolic link in DIR: a linked paywall file, paywalls/ or products.json pointing outside', async (t) => {
  const root = tempDir(t);
  const db = path.join(root, 'paywalld.db');
  assert.equal((await runCli(['projects', 'create', 'acme', '--db', db])).status, 0);
  assert.equal((await runCli(['apply', exampleCopy(t), '--db', db, '--publish'])).status, 0);
  const outside = path.join(root, 'outside');
  fs.mkdirSync(outside);
  const secret = path.join(outside, 'secret.txt');
  fs.writeFileSync(secret, 'keep me\n');

  const cases: [string, (dir: string) => void, RegExp][] = [
    [
      'a paywall file',
      (dir) => fs.symlinkSync(secret, path.join(dir, 'paywalls', 'onboarding.json')),
      /^paywalld export: paywalls\/onboarding\.json of the export directory/,
    ],
    ['products.json', (dir) => fs.symlinkSync(secret, path.join(dir, 'products.json')), /^paywalld export: products\.json of the export directory/],
    ['paywalls/', (dir) => fs.symlinkSync(outside, path.join(dir, 'paywalls')), /^paywalld export: paywalls of the export directory leads outside it/],
  ];
  for (const [name, plant, message] of cases) {
    const dir = path.join(root, name.replace(/\W/g, '_'));
    fs.mkdirSync(dir);
    if (name !== 'paywalls/') fs.mkdirSync(path.join(dir, 'paywalls'));
    plant(dir);
    const result = await runCli(['export', dir, '--db', db]);
    assert.equal(result.status, 1, `${name}: ${result.stderr}`);
    assert.match(result.stderr, message, name);
    assert.match(result.stderr, /refusing to write through it/, name);
    assert.deepEqual(snapshotFiles(outside), { 'secret.txt': 'keep me\n' }, name);
  }
  // The same export into a plain directory succeeds: the refusals are the links'.
  const plain = path.join(root, 'plain');
  const exported = await runCli(['export', plain, '--db', db]);
  assert.equal(exported.status, 0, exported.stderr);
  assert.deepEqual(Object.keys(snapshotFiles(plain)).sort(), ['paywalld.json', 'paywalls/onboarding.json', 'paywalls/winback.json', 'products.json']);
});
