/** Several `paywalld serve` processes on one PostgreSQL database (test/scale-out/). */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { secretsKeyFileFor } from './backend.ts';
import { type ServeProcess, spawnServe } from './cli.ts';
import { until } from './until.ts';

const ARGS = ['--rate-limit-sdk', '0', '--rate-limit-api', '0', '--rate-limit-hooks', '0', '--rate-limit-hooks-project', '0'];

export interface Keys {
  sdk: string;
  secret: string;
}

/** Starts `count` servers at once on `url` (with `args` besides); the keys are those the one that created the project printed. */
export async function startInstances(t: TestContext, url: string, count: number, args: string[] = []): Promise<{ instances: ServeProcess[]; keys: Keys }> {
  const instances = await Promise.all(
    Array.from({ length: count }, () => spawnServe(t, ['--db', url, ...ARGS, '--secrets-key-file', secretsKeyFileFor(url), ...args])),
  );
  const creators = instances.filter((instance) => instance.output().includes('Created project'));
  assert.equal(creators.length, 1, instances.map((instance) => instance.output()).join('\n---\n'));
  const output = creators[0]!.output();
  const sdk = /sdk key:\s+(\S+)/.exec(output)?.[1];
  const secret = /secret key:\s+(\S+)/.exec(output)?.[1];
  assert.ok(sdk && secret);
  return { instances, keys: { sdk, secret } };
}

/** Milliseconds until `condition` holds, polled; fails past `ms`. */
export async function within(ms: number, what: string, condition: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  await until(condition, what, ms, 20);
  return performance.now() - started;
}
