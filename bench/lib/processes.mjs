/**
 * Child processes of the bench: servers under test and baselines, each on
 * the server core, and wrk on the load core (taskset, when there is one and
 * at least two cores). Every process started here is remembered, so that a
 * failed run still stops them all.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

const started = new Set();

const canPin = os.availableParallelism() >= 2 && spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

/** The CPU layout of this run, for the report. */
export const pinning = canPin
  ? { load: '0', server: '1', note: 'wrk on core 0, servers and baselines on core 1 (taskset)' }
  : { load: undefined, server: undefined, note: 'not pinned (taskset missing or a single core)' };

/** [command, args] that runs `command args` on `core` when pinning is possible. */
export function pinned(core, command, args) {
  return core === undefined ? [command, args] : ['taskset', ['-c', core, command, ...args]];
}

/**
 * Starts a long-running process on the server core, its output appended to
 * `logFile`, and resolves once a line of its stdout matches `ready` (with the
 * match) — or rejects when it exits first or takes longer than 30 s.
 */
export function startProcess(command, args, { ready, logFile, env, nodeOptions = [] }) {
  const [cmd, argv] = pinned(pinning.server, command, [...nodeOptions, ...args]);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  started.add(child);
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    log.write(chunk);
    if (stdout.length < 64 * 1024) stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    log.write(chunk);
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      started.delete(child);
      log.end();
      resolve({ code, signal });
    }),
  );
  const handle = {
    pid: child.pid,
    stdout: () => stdout,
    exited,
    /** True while the process runs. */
    alive: () => child.exitCode === null && child.signalCode === null,
    /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it ended. */
    async stop(graceMs = 15_000) {
      if (!handle.alive()) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not get ready within 30 s:\n${stdout}\n${stderr}`)), 30_000);
    const check = () => {
      const match = ready.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve({ ...handle, match });
    };
    child.stdout.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${signal ?? code}) before it was ready:\n${stdout}\n${stderr}`));
    });
  });
}

/** Runs a command to its end on `core`; resolves with its output, rejects on a non-zero exit. */
export function run(core, command, args, { env, timeoutMs = 600_000, cwd } = {}) {
  const [cmd, argv] = pinned(core, command, args);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, cwd });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      started.delete(child);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}):\n${stdout}\n${stderr}`));
    });
  });
}

function statusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size of a running process in bytes (VmRSS), undefined once it is gone. */
export const rss = (pid) => statusKb(pid, 'VmRSS');

/** The highest resident set size the process has had (VmHWM), in bytes. */
export const peakRss = (pid) => statusKb(pid, 'VmHWM');

/** Clock ticks per second of /proc/PID/stat (and of wrk's cpu_ticks, bench/wrk/report.lua). */
export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time a process (all its threads) has used so far, in seconds. */
export function cpuSeconds(pid) {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** Bytes a process has caused to be written to storage so far (write_bytes of /proc/PID/io). */
export function writtenBytes(pid) {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
  } catch {
    return NaN;
  }
}

/**
 * Runs `measure` and adds to its result what the process used meanwhile:
 * `cpu`, the share of one core (1 = a whole core), and `written`, the bytes
 * it wrote to storage.
 */
export async function withUsage(pid, measure) {
  const before = { cpu: cpuSeconds(pid), written: writtenBytes(pid) };
  const start = performance.now();
  const result = await measure();
  return {
    ...result,
    cpu: (cpuSeconds(pid) - before.cpu) / ((performance.now() - start) / 1000),
    written: writtenBytes(pid) - before.written,
  };
}

/** Kills whatever is still running: for an interrupted or failed run. */
export function killAll() {
  for (const child of started) child.kill('SIGKILL');
  started.clear();
}
