/**
 * PostgreSQL for `npm run bench -- --postgres`: one cluster for the whole run
 * (bench/lib/postgres-cluster.ts, through tsx: the tests' own cluster code),
 * a fresh database per scenario, and `paywalld serve` instances on it.
 * PostgreSQL is not pinned: its backends run on either core, for the
 * paywalld instances and the bare baseline alike.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import postgres from 'postgres';
import { paywalldAnswers } from './answers.mjs';
import { PAYWALL_ID, seedFixture } from './fixture.mjs';
import { createDatabase, ROOT, startPaywalld } from './paywalld.mjs';
import { waitFor } from './scenario.mjs';

let cluster;

/** The run's cluster, started on first use; resolves with the URL of its `postgres` database. */
function startCluster() {
  cluster ??= new Promise((resolve, reject) => {
    // stdin a pipe from this process: the cluster stops when the bench ends, however it ends.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'postgres-cluster.ts')], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.unref();
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /^cluster (\S+)$/m.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the PostgreSQL cluster did not start (${code}):\n${stdout}`)));
  });
  return cluster;
}

let databases = 0;

/** A new, empty database on the run's cluster; resolves with its URL. */
export async function postgresDatabase() {
  const admin = await startCluster();
  const name = `bench_${++databases}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await sql.end();
  }
  return admin.replace(/\/postgres$/, `/${name}`);
}

/** Runs `body` with a connection to `url`. */
export async function withPostgres(url, body) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await body(sql);
  } finally {
    await sql.end();
  }
}

/**
 * `count` paywalld instances on one new database (`url` when given, else
 * fresh), the fixture published through the first and served by all.
 */
export async function postgresInstances(ctx, dir, count, { url, project } = {}) {
  url ??= await postgresDatabase();
  project ??= await createDatabase(ctx.dist, url);
  const instances = [];
  for (let i = 0; i < count; i++) {
    const name = String.fromCharCode(65 + i);
    const logFile = path.join(dir, `paywalld-${name}.log`);
    const server = await startPaywalld(ctx.dist, url, { logFile, nodeOptions: ctx.nodeOptions(dir) });
    instances.push({ ...server, name: `instance ${name}`, project, answers: () => paywalldAnswers(server.url, project.secret) });
  }
  const published = await fetch(`${instances[0].url}/api/paywalls/${PAYWALL_ID}`, { headers: { authorization: `Bearer ${project.secret}` } });
  await published.arrayBuffer();
  if (published.status === 404) await seedFixture(instances[0].url, project.secret);
  const auth = { authorization: `Bearer ${project.sdk}` };
  for (const instance of instances) {
    await waitFor(
      async () => (await fetch(`${instance.url}/api/sdk/config?paywallId=${PAYWALL_ID}&userId=u`, { headers: auth })).status === 200,
      10_000,
      `${instance.name} did not serve the paywall`,
    );
  }
  return { url, project, instances };
}
