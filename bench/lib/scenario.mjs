/** What the scenarios share: crash checks and the shape of their results. */
import { ScenarioError } from './wrk.mjs';

/** Fails the scenario when a server under test is gone (it crashed or was killed). */
export function assertAlive(...servers) {
  for (const server of servers) {
    if (!server.alive()) throw new ScenarioError(`the server ${server.name ?? ''} (pid ${server.pid}) exited during the run:\n${server.stdout().slice(-4000)}`);
  }
}

/** Stops servers gracefully; a server that does not exit 0 on SIGTERM fails the scenario. */
export async function stopAll(...servers) {
  const results = await Promise.all(servers.map((server) => server.stop()));
  results.forEach(({ code, signal }, i) => {
    if (code !== 0) throw new ScenarioError(`the server ${servers[i].name ?? ''} (pid ${servers[i].pid}) ended with ${signal ?? code} instead of 0`);
  });
}

/**
 * Runs `body`, then stops the servers: gracefully and checked when the body
 * succeeded, without checks when it failed (its error is the one to report).
 */
export async function measuring(servers, body) {
  let result;
  try {
    result = await body();
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop(2000)));
    throw error;
  }
  await stopAll(...servers);
  return result;
}

/**
 * A row of the results table, its cells already formatted.
 */
export function row(scenario, { paywalld, baseline = '—', ratio = '—', p50 = '—', p99 = '—' }) {
  return { scenario, paywalld, baseline, ratio, p50, p99 };
}

/** Polls until `check` resolves true (a rejection counts as not yet); fails the scenario after `ms`. */
export async function waitFor(check, ms, what) {
  const deadline = performance.now() + ms;
  while (!(await check().catch(() => false))) {
    if (performance.now() > deadline) throw new ScenarioError(`${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
