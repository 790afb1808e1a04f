#!/usr/bin/env node
// Resolve latency while keyless callers post hostile App Store notifications
// (bench/notes/hostile-hooks.md, "Hostile store notifications"): x5c chains of four RSA-3072
// certificates whose public exponents have thousands of bits, ending at a
// root nobody configured, as the review posted them. Each round measures
// resolve (wrk, bench/wrk/resolve.lua) alone, then while ATTACKERS
// keep-alive connections post the notification as fast as they are
// answered (401 each). The /hooks rate limits are off (where the build has
// them), so the figure is what the verification itself costs the event
// loop: the limits only add to it.
// Usage: node bench/hostile-hooks.mjs [--seconds S] [--rounds R] [--attackers N] [--dist DIR]
//   --dist DIR  a built dist/ to measure instead of this checkout's (the one before a change, built elsewhere)
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PAYWALL_ID, seedFixture } from './lib/fixture.mjs';
import * as f from './lib/format.mjs';
import { createDatabase, prepareDist } from './lib/paywalld.mjs';
import { killAll, startProcess } from './lib/processes.mjs';
import { requireWrk, wrk } from './lib/wrk.mjs';
import { USERS } from './scenarios/resolve.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    attackers: { type: 'string', default: '8' },
    dist: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const ATTACKERS = Number(values.attackers);
const RESOLVE_CONNECTIONS = 8;
requireWrk();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-hostile-'));
const openssl = (...args) => execFileSync('openssl', args, { cwd: tmp, stdio: 'pipe' });
const der = (file) => new crypto.X509Certificate(fs.readFileSync(path.join(tmp, file))).raw.toString('base64');

/** The hostile notification: ES256 in the header, an RSA chain with huge exponents in x5c, Apple's marker extensions. */
function hostileBody() {
  openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072', '-pkeyopt', `rsa_keygen_pubexp:0x${'f'.repeat(760)}1`, '-out', 'rsa.key');
  fs.writeFileSync(
    path.join(tmp, 'ext.cnf'),
    '[ca]\nbasicConstraints=critical,CA:true\n1.2.840.113635.100.6.2.1=ASN1:NULL\n[leaf]\nbasicConstraints=critical,CA:false\n1.2.840.113635.100.6.11.1=ASN1:NULL\n',
  );
  openssl('req', '-x509', '-new', '-key', 'rsa.key', '-subj', '/CN=hostile 0', '-days', '3', '-out', '0.pem');
  for (const [n, section] of [
    [1, 'ca'],
    [2, 'ca'],
    [3, 'leaf'],
  ]) {
    openssl('req', '-new', '-key', 'rsa.key', '-subj', `/CN=hostile ${n}`, '-out', `${n}.csr`);
    openssl(
      'x509',
      '-req',
      '-in',
      `${n}.csr`,
      '-CA',
      `${n - 1}.pem`,
      '-CAkey',
      'rsa.key',
      '-CAcreateserial',
      '-days',
      '3',
      '-extfile',
      'ext.cnf',
      '-extensions',
      section,
      '-out',
      `${n}.pem`,
    );
  }
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c: [3, 2, 1, 0].map((n) => der(`${n}.pem`)) })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ notificationType: 'DID_RENEW', notificationUUID: crypto.randomUUID() })).toString('base64url');
  const key = crypto.createPrivateKey(fs.readFileSync(path.join(tmp, 'rsa.key')));
  const signature = crypto.sign('sha256', Buffer.from(`${header}.${payload}`), key).toString('base64url');
  return JSON.stringify({ signedPayload: `${header}.${payload}.${signature}` });
}

/** An Apple-shaped root the project trusts (any EC root: the hostile chain does not end at it). */
function configuredRoot() {
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'root.key');
  openssl('req', '-x509', '-new', '-key', 'root.key', '-subj', '/CN=configured root', '-days', '3', '-out', 'root.pem');
  return fs.readFileSync(path.join(tmp, 'root.pem'), 'utf8');
}

/** ATTACKERS connections posting `body` back to back until `stop` resolves; resolves with the answers by status. */
async function attack(url, body, stop) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: ATTACKERS });
  const statuses = new Map();
  let running = true;
  stop.then(() => (running = false));
  const post = () =>
    new Promise((resolve) => {
      const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        response.resume().on('end', resolve);
      });
      request.on('error', resolve);
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: ATTACKERS }, async () => {
      while (running) await post();
    }),
  );
  agent.destroy();
  return statuses;
}

try {
  const dist = values.dist ? { script: path.join(values.dist, 'paywalld.js') } : prepareDist(path.join(tmp, 'dist'));
  const file = path.join(tmp, 'paywalld.db');
  const project = await createDatabase(dist, file);
  const limitsOff = ['--rate-limit-sdk', '0', '--rate-limit-api', '0', '--request-log-rate', '0'];
  const hooksFlags = spawnSync(process.execPath, [dist.script, 'serve', '--rate-limit-hooks', '0', '--help'], { stdio: 'ignore' }).status === 0;
  if (hooksFlags) limitsOff.push('--rate-limit-hooks', '0', '--rate-limit-hooks-project', '0');
  const server = await startProcess(process.execPath, [dist.script, 'serve', '--port', '0', '--db', file, ...limitsOff], {
    ready: /"msg":"listening".*"port":(\d+)/,
    logFile: path.join(tmp, 'paywalld.log'),
  });
  const url = `http://127.0.0.1:${server.match[1]}`;
  await seedFixture(url, project.secret);
  const configured = await fetch(`${url}/api/integrations/app-store`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${project.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle_id: 'com.example.app', root_certificates: [configuredRoot()] }),
  });
  if (configured.status !== 200) throw new Error(`configuring the App Store connector answered ${configured.status}`);
  const body = hostileBody();
  const hook = `${url}/hooks/app-store/${encodeURIComponent(project.projectId)}`;
  const resolve = () =>
    wrk({
      url,
      script: 'resolve.lua',
      scriptArgs: [project.sdk, PAYWALL_ID, String(USERS), 'pool', crypto.randomUUID()],
      connections: RESOLVE_CONNECTIONS,
      seconds: SECONDS,
    });
  console.log(
    `resolve ${RESOLVE_CONNECTIONS} connections, ${SECONDS} s a round; ${ATTACKERS} attackers; /hooks limits ${hooksFlags ? 'off' : 'absent from this build'}`,
  );
  const alone = [];
  const attacked = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const quiet = await resolve();
    alone.push(quiet);
    let done;
    const stop = new Promise((resolve) => (done = resolve));
    const posting = attack(hook, body, stop);
    const busy = await resolve();
    done();
    const statuses = await posting;
    attacked.push(busy);
    const answers = [...statuses].map(([status, n]) => `${n}× ${status}`).join(', ');
    console.log(`round ${round}: alone p50 ${f.ms(quiet.p50)} p99 ${f.ms(quiet.p99)}; attacked p50 ${f.ms(busy.p50)} p99 ${f.ms(busy.p99)} (${answers})`);
  }
  const median = (rounds, key) => rounds.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
  console.log(
    `median: resolve p50 alone ${f.ms(median(alone, 'p50'))}, under hostile posts ${f.ms(median(attacked, 'p50'))}; p99 ${f.ms(median(alone, 'p99'))} and ${f.ms(median(attacked, 'p99'))}`,
  );
  await server.stop();
} finally {
  killAll();
  fs.rmSync(tmp, { recursive: true, force: true });
}
