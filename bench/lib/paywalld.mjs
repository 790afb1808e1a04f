/**
 * The server under test: the built dist/ (rebuilt when missing or older than
 * the sources), copied into the run's temp dir first so that a rebuild by
 * someone else mid-run cannot pull files from under a running benchmark,
 * then started as `paywalld serve` with every limit that would throttle the
 * load generator switched off.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineAnswers, paywalldAnswers } from './answers.mjs';
import { seedFixture } from './fixture.mjs';
import { run, startProcess } from './processes.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function newestMtime(entry) {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

/** Builds dist/ when it is missing or stale, copies it to `dir` and describes the copy. */
export function prepareDist(dir) {
  const bundle = path.join(ROOT, 'dist', 'paywalld.js');
  const inputs = ['src', 'build.mjs', 'package-lock.json'].map((name) => path.join(ROOT, name)).filter((p) => fs.existsSync(p));
  const stale = !fs.existsSync(bundle) || fs.statSync(bundle).mtimeMs < Math.max(...inputs.map(newestMtime));
  if (stale) {
    console.log(fs.existsSync(bundle) ? 'dist/ is older than the sources: npm run build' : 'dist/ is missing: npm run build');
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  fs.cpSync(path.join(ROOT, 'dist'), dir, { recursive: true });
  return { ...describeDist(dir), rebuilt: stale };
}

/** A built dist/ in `dir` as the scenarios start it: its script, its addons for this Node.js, and whether its serve takes --request-log-rate. */
export function describeDist(dir) {
  // dist/ may hold addons for several Node.js ABIs (runtimes.mjs); the baselines load this node's.
  const addon = (prefix) => path.join(dir, `${prefix}_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  if (!fs.existsSync(addon('uws'))) throw new Error(`${dir} holds no uWebSockets.js addon for Node.js ${process.version}`);
  const script = path.join(dir, 'paywalld.js');
  // Whether this build's `serve` takes --request-log-rate (its help lists it); if not, the variable does the same.
  const logRateFlag = spawnSync(process.execPath, [script, 'serve', '--request-log-rate', '0', '--help'], { stdio: 'ignore' }).status === 0;
  return { dir, script, uwsAddon: addon('uws'), sqliteAddon: addon('better_sqlite3'), logRateFlag };
}

/** A new database with the server's schema and one project; resolves with the project id and its keys. */
export async function createDatabase(dist, file) {
  await run(undefined, process.execPath, [dist.script, 'migrate', '--db', file]);
  const { stdout } = await run(undefined, process.execPath, [dist.script, 'projects', 'create', 'bench', '--json', '--db', file]);
  const created = JSON.parse(stdout);
  return { projectId: created.project.id, sdk: created.keys.sdk, secret: created.keys.secret };
}

/**
 * `paywalld serve` on a free port of 127.0.0.1 with the rate limits and the
 * request log off. `nodeOptions` go before the script (--cpu-prof …).
 */
export async function startPaywalld(dist, file, { logFile, nodeOptions = [] }) {
  const args = [dist.script, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', file, '--rate-limit-sdk', '0', '--rate-limit-api', '0'];
  if (dist.logRateFlag) args.push('--request-log-rate', '0');
  const server = await startProcess(process.execPath, args, {
    ready: /"msg":"listening".*"port":(\d+)/,
    logFile,
    nodeOptions,
    env: { PAYWALLD_REQUEST_LOG_RATE: '0' },
  });
  return { ...server, url: `http://127.0.0.1:${server.match[1]}` };
}

/**
 * A cached-body baseline server (bench/baselines/); resolves once it listens.
 * `answers()` resolves with its answers so far by status (bench/lib/answers.mjs).
 */
export async function startBaseline(file, args, logFile) {
  const server = await startProcess(process.execPath, [file, ...args], { ready: /^listening (\d+)$/m, logFile });
  const url = `http://127.0.0.1:${server.match[1]}`;
  return { ...server, url, answers: () => baselineAnswers(url) };
}

/**
 * A database in `dir` with one project, a paywalld on it, and the fixture
 * paywall published: what most scenarios start from. `answers()` resolves
 * with its answers so far by status, from its /metrics.
 */
export async function servingPaywalld(ctx, dir) {
  const file = path.join(dir, 'paywalld.db');
  const project = await createDatabase(ctx.dist, file);
  const server = await startPaywalld(ctx.dist, file, { logFile: path.join(dir, 'paywalld.log'), nodeOptions: ctx.nodeOptions(dir) });
  await seedFixture(server.url, project.secret);
  return { ...server, file, project, answers: () => paywalldAnswers(server.url, project.secret) };
}
