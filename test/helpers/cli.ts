import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
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

export function runCli(args: string[], options: Launch & { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliResult {
  const result = spawnSync(...command(options, args), {
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
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
