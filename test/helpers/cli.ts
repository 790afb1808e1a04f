import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The bundle `npm test` builds first: CLI tests run the real distributable. */
export const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/paywalld.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** How paywalld is started: `node script` (the bundle by default), or an `executable` (the single executable). */
export interface Launch {
  script?: string;
  executable?: string;
}

function command(options: Launch, args: string[]): [string, string[]] {
  return options.executable ? [options.executable, args] : [process.execPath, [options.script ?? DIST, ...args]];
}

/** How long one CLI run may take before it is killed: far beyond any command, short of the test runner's own timeout. */
const CLI_TIMEOUT_MS = 30_000;

/**
 * Runs paywalld to completion without blocking the test process: a synchronous
 * spawn freezes the event loop for the whole run, so keep-alive sockets of the
 * test's own fetches miss the server closing them and the next fetch fails.
 */
export function runCli(args: string[], options: Launch & { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  const child = spawn(...command(options, args), {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, CLI_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      if (timedOut) stderr += `\n[runCli] paywalld ${args.join(' ')} was killed after ${CLI_TIMEOUT_MS / 1000} s\n`;
      resolve({ status, stdout, stderr });
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything printed on stdout so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `paywalld serve` as a child process and resolves once it logs that it listens. */
export function spawnServe(t: TestContext, args: string[], options: Launch & { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ServeProcess> {
  const child = spawn(...command(options, ['serve', '--port', '0', ...args]), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 15 s:\n${stdout}\n${stderr}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const match = /"msg":"listening".*"port":(\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        const port = Number(match[1]);
        resolve({
          child,
          port,
          url: `http://127.0.0.1:${port}`,
          output: () => stdout,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
}
