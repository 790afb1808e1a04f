/**
 * Runs wrk on the load core with one of the Lua scripts in bench/wrk/ and
 * reads the line bench/wrk/report.lua prints. A run with any response of 400
 * or more ("Non-2xx or 3xx responses" in wrk's words) or any socket error is
 * a failure: the figures of a run that errored say nothing. wrk cannot see
 * the other non-2xx statuses without a Lua response() callback, which would
 * make wrk the bottleneck; bench/lib/answers.mjs counts them at the servers.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLOCK_TICKS, pinning, run } from './processes.mjs';

const SCRIPTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'wrk');

export class ScenarioError extends Error {}

/** Exits with advice when wrk is not installed. */
export function requireWrk() {
  if (spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error) {
    console.error('wrk is not installed. On Debian or Ubuntu: apt-get install wrk');
    process.exit(1);
  }
}

/**
 * One wrk run. `script` is a file in bench/wrk/, `scriptArgs` what follows
 * `--`. Resolves with requests/s, latency percentiles in ms, and `loadCpu`:
 * the share of one core wrk itself used while it measured (1 = a whole core;
 * near 1 means the load generator, not the server, set the pace).
 */
export async function wrk({ url, script, scriptArgs = [], connections, seconds, threads = 1, headers = [], timeout = '10s' }) {
  const args = [
    `-t${threads}`,
    `-c${Math.max(connections, threads)}`,
    `-d${seconds}s`,
    `--timeout`,
    timeout,
    '-s',
    path.join(SCRIPTS, script),
    ...headers.flatMap((header) => ['-H', header]),
    url,
    '--',
    ...scriptArgs,
  ];
  const { stdout } = await run(pinning.load, 'wrk', args);
  const line = /^BENCH_JSON (.*)$/m.exec(stdout);
  if (!line) throw new ScenarioError(`wrk printed no report:\n${stdout}`);
  const report = JSON.parse(line[1]);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  const { connect, read, write, status, timeout: timeouts } = report.errors;
  if (non2xx || status > 0 || connect + read + write + timeouts > 0) {
    throw new ScenarioError(
      `wrk ${script} against ${url}: ${non2xx ? non2xx[1] : status} non-2xx responses, socket errors connect ${connect}, read ${read}, write ${write}, timeout ${timeouts}\n${stdout}`,
    );
  }
  if (report.requests === 0) throw new ScenarioError(`wrk ${script} against ${url}: no request completed\n${stdout}`);
  const elapsed = report.duration_us / 1e6;
  return {
    requests: report.requests,
    seconds: elapsed,
    perSecond: report.requests / elapsed,
    p50: report.p50_us / 1000,
    p90: report.p90_us / 1000,
    p99: report.p99_us / 1000,
    max: report.max_us / 1000,
    loadCpu: report.cpu_ticks >= 0 ? report.cpu_ticks / CLOCK_TICKS / elapsed : NaN,
  };
}
