/**
 * Response statuses counted where they are sent: at the servers. wrk only
 * counts statuses of 400 or more, and a Lua response() callback that could
 * count the rest costs wrk more per response than the fastest server spends
 * answering, so the servers count instead: paywalld in its /metrics
 * (paywalld_http_requests_total, every route), the bare baselines in a
 * counter they serve at ANSWERS_PATH (answers-path.mjs). A run during which
 * any server answered anything but a 2xx fails, as does one where the server
 * answered fewer 2xx than wrk counted responses. paywalld's 499 is no answer
 * but a request the client abandoned: wrk closes its connections at the end
 * of a run with requests in flight (event batches, answered asynchronously).
 */
import { ANSWERS_PATH } from './answers-path.mjs';
import { ScenarioError } from './wrk.mjs';

/** What paywalld's metrics record for a request whose client went away before the answer. */
const ABANDONED = '499';

const REQUESTS_TOTAL = /^paywalld_http_requests_total\{[^}]*status="(\d+)"[^}]*\} (\d+)$/gm;

/** paywalld's answers so far by status, over every route, from GET /metrics (with a secret key). */
export async function paywalldAnswers(url, secret) {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${secret}` } });
  if (response.status !== 200) throw new ScenarioError(`GET ${url}/metrics answered ${response.status}`);
  const counts = new Map();
  for (const [, status, count] of (await response.text()).matchAll(REQUESTS_TOTAL)) {
    counts.set(status, (counts.get(status) ?? 0) + Number(count));
  }
  return counts;
}

/** A bare baseline's answers so far by status. */
export async function baselineAnswers(url) {
  const response = await fetch(`${url}${ANSWERS_PATH}`);
  if (response.status !== 200) throw new ScenarioError(`GET ${url}${ANSWERS_PATH} answered ${response.status}`);
  return new Map(Object.entries(await response.json()));
}

/**
 * Runs `measure` (a wrk run, resolving with its `requests`) between two
 * counts of `server.answers()`, fails on any non-2xx answered meanwhile, and
 * adds `answered2xx` to the result.
 */
export async function checkingAnswers(server, measure) {
  const before = await server.answers();
  const result = await measure();
  const after = await server.answers();
  let ok = 0;
  const bad = [];
  for (const [status, count] of after) {
    const delta = count - (before.get(status) ?? 0);
    if (delta === 0 || status === ABANDONED) continue;
    if (status.startsWith('2')) ok += delta;
    else bad.push(`${delta} × ${status}`);
  }
  if (bad.length > 0) throw new ScenarioError(`${server.name} (${server.url}) answered non-2xx statuses during the run: ${bad.join(', ')}`);
  if (ok < result.requests) {
    throw new ScenarioError(`${server.name} (${server.url}) answered ${ok} requests with a 2xx, fewer than the ${result.requests} responses wrk counted`);
  }
  return { ...result, answered2xx: ok };
}
