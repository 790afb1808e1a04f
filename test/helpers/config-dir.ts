/** Servers and CLI runs for the configuration-directory tests: everything through the real bundle. */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SYNC_FILE } from '../../src/config-dir/sync-record.ts';
import { type CliResult, runCli, type ServeProcess, spawnServe } from './cli.ts';
import { tempDir } from './temp.ts';

export const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/config');

export interface CiServer extends ServeProcess {
  keys: { sdk: string; secret: string };
  projectId: string;
}

/** `paywalld serve --db :memory: --keys-file …` plus `args`: a throwaway server and its keys. */
export async function ciServer(t: TestContext, args: string[] = []): Promise<CiServer> {
  const keysFile = path.join(tempDir(t), 'keys.json');
  const server = await spawnServe(t, ['--db', ':memory:', '--keys-file', keysFile, '--rate-limit-api', '0', '--request-log-rate', '0', ...args]);
  t.after(() => server.stop());
  const created = JSON.parse(fs.readFileSync(keysFile, 'utf8'));
  return Object.assign(server, { keys: created.keys, projectId: created.project.id });
}

/** Runs paywalld against a server with its secret key in PAYWALLD_KEY, as docs/guide/paywalls-as-code.md advises. */
export function against(server: CiServer, args: string[], key = server.keys.secret): Promise<CliResult> {
  return runCli([...args, '--server', server.url], { env: { PAYWALLD_KEY: key } });
}

/** A copy of examples/config to change. */
export function exampleCopy(t: TestContext): string {
  const dir = path.join(tempDir(t), 'config');
  fs.cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

export function readJson(file: string): any {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

export function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Every configuration file under `dir` with its bytes, by relative path (not the record of what targets held, which is state). */
export function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === SYNC_FILE) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = fs.readFileSync(full, 'utf8');
  }
  return out;
}

export async function management(server: CiServer, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + urlPath, {
    method,
    headers: { authorization: `Bearer ${server.keys.secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
