#!/usr/bin/env node
// npm run bench [-- --quick | --full] [--postgres] [--only …] [--profile]: see bench/lib/options.mjs
// and BENCHMARKS.md. Exits non-zero when any scenario failed (an error
// response, a socket error, a server that crashed or lost events).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mb } from './lib/format.mjs';
import { HELP, readOptions } from './lib/options.mjs';
import { prepareDist, ROOT } from './lib/paywalld.mjs';
import { killAll } from './lib/processes.mjs';
import { report } from './lib/report.mjs';
import { row } from './lib/scenario.mjs';
import { requireWrk } from './lib/wrk.mjs';
import { summaryTable } from './profile-summary.mjs';
import { events } from './scenarios/events.mjs';
import { identify } from './scenarios/identify.mjs';
import { memory } from './scenarios/memory.mjs';
import { mixed } from './scenarios/mixed.mjs';
import { placement } from './scenarios/placement.mjs';
import { postgresEvents } from './scenarios/postgres-events.mjs';
import { postgresPropagation } from './scenarios/postgres-propagation.mjs';
import { postgresReads } from './scenarios/postgres-reads.mjs';
import { postgresResolve } from './scenarios/postgres-resolve.mjs';
import { resolve } from './scenarios/resolve.mjs';
import { results } from './scenarios/results.mjs';
import { stats } from './scenarios/stats.mjs';

const SCENARIOS = { resolve, events, stats, memory, mixed, results, identify, placement };
const POSTGRES_SCENARIOS = { resolve: postgresResolve, events: postgresEvents, reads: postgresReads, propagation: postgresPropagation };
/** Scenarios whose paywalld runs under --cpu-prof with --profile (by directory: ctx.dir). */
const PROFILED = new Set(['resolve', 'events', 'mixed', 'placement', 'postgres-resolve', 'postgres-events']);

let options;
try {
  options = readOptions(process.argv.slice(2));
} catch (error) {
  console.error(`${error.message}\n\n${HELP}`);
  process.exit(2);
}
if (options.help) {
  console.log(HELP);
  process.exit(0);
}
requireWrk();

const RESULTS = path.join(ROOT, 'bench', 'results');
const started = new Date();
const clock = performance.now();
const loadAverage = () => os.loadavg()[0].toFixed(2);
const load = { before: loadAverage(), after: '' };
if (os.loadavg()[0] > 0.5) console.warn(`warning: load average ${load.before} before the run: other work on this machine will skew the figures`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-bench-'));
process.on('SIGINT', () => {
  killAll();
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(130);
});

let nonces = 0;
const runId = Date.now().toString(36);
const profileDirs = [];
const ctx = {
  options,
  dist: undefined,
  log: (line) => console.log(line),
  /** A fresh directory (database, logs) for one scenario. */
  dir(name) {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  },
  /** A string no other wrk run of this or an earlier run used: event ids and distinct user ids start with it. */
  nonce: () => `${runId}${(nonces++).toString(36)}`,
  /** Node flags for a paywalld of this scenario: --cpu-prof when profiling it. */
  nodeOptions(dir) {
    const scenario = path.basename(dir);
    if (!options.profile || !PROFILED.has(scenario)) return [];
    const profiles = path.join(RESULTS, 'profiles', scenario);
    fs.rmSync(profiles, { recursive: true, force: true });
    fs.mkdirSync(profiles, { recursive: true });
    profileDirs.push({ scenario, dir: profiles });
    return ['--cpu-prof', '--cpu-prof-dir', profiles];
  },
};

const rows = [];
const targets = [];
const details = [];
const failures = [];
const profiles = [];
try {
  ctx.dist = prepareDist(path.join(tmp, 'dist'));
  console.log(`paywalld bench (${options.mode}): ${options.only.join(', ')}; temp dir ${tmp}`);
  for (const name of options.only) {
    const begin = performance.now();
    const loadBefore = loadAverage();
    console.log(`\n== ${name}`);
    try {
      const result = await (options.postgres ? POSTGRES_SCENARIOS : SCENARIOS)[name](ctx);
      rows.push(...result.rows);
      targets.push(...result.targets);
      const took = ((performance.now() - begin) / 1000).toFixed(0);
      details.push(...result.details, `  (${name} took ${took} s; load average ${loadBefore} before, ${loadAverage()} after)`, '');
    } catch (error) {
      console.error(`!! ${name} failed: ${error.message}`);
      failures.push({ scenario: name, message: error.stack ?? String(error) });
      rows.push(row(`${name}: **FAILED** (see Failures)`, { paywalld: '—' }));
    }
  }
  for (const { scenario, dir } of profileDirs) {
    for (const file of fs
      .readdirSync(dir)
      .filter((name) => name.endsWith('.cpuprofile'))
      .sort()) {
      profiles.push({ title: `${scenario}: ${file}`, lines: summaryTable(path.join(dir, file), 15) });
    }
  }
} catch (error) {
  failures.push({ scenario: 'setup', message: error.stack ?? String(error) });
} finally {
  killAll();
}
load.after = loadAverage();
const seconds = (performance.now() - clock) / 1000;
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const text = report({ command, options, started, seconds, load, dist: ctx.dist ?? {}, rows, targets, details, failures, profiles });
fs.mkdirSync(RESULTS, { recursive: true });
fs.writeFileSync(path.join(RESULTS, 'latest.md'), text);
console.log(`\n${text}`);
console.log(`written to bench/results/latest.md; ${seconds.toFixed(0)} s; peak RSS of the bench itself ${mb(process.resourceUsage().maxRSS * 1024)}`);
if (failures.length > 0) {
  // The servers' logs say why; the databases are left out, they can be gigabytes.
  const logs = path.join(RESULTS, 'logs');
  fs.rmSync(logs, { recursive: true, force: true });
  for (const file of fs.readdirSync(tmp, { recursive: true }).filter((name) => String(name).endsWith('.log'))) {
    fs.mkdirSync(path.dirname(path.join(logs, file)), { recursive: true });
    fs.copyFileSync(path.join(tmp, file), path.join(logs, file));
  }
  console.error(`${failures.length} scenario(s) failed: ${failures.map((f) => f.scenario).join(', ')}; server logs in bench/results/logs/`);
}
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failures.length > 0 ? 1 : 0);
