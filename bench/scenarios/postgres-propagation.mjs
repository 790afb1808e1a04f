/**
 * PostgreSQL scenario: how soon what one instance writes is served by
 * another on the same database (docs/operations/scale-out.md promises within 1 s; the
 * tests only wait for it, up to 10 s). Two instances, A and B; for each
 * sample, from A's answer to the write until B answers accordingly, B polled
 * every 5 ms:
 * - a configuration change: the paywall's title changed and published
 *   through A, until B's resolve shows the new title;
 * - a key created through A, until B accepts it;
 * - that key revoked through A, until B refuses it (401).
 */

import { PAYWALL, PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { postgresInstances } from '../lib/postgres.mjs';
import { percentile } from '../lib/rounds.mjs';
import { assertAlive, measuring, row, waitFor } from '../lib/scenario.mjs';
import { ScenarioError } from '../lib/wrk.mjs';

/** Longer than any propagation: past it the scenario fails, it does not measure. */
const GIVE_UP_MS = 30_000;
const PROMISE_MS = 1000;

async function call(server, key, method, path, body) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text };
}

async function expectOk(server, key, method, path, body) {
  const answer = await call(server, key, method, path, body);
  if (answer.status >= 300) throw new ScenarioError(`${method} ${path} on ${server.name} answered ${answer.status}: ${answer.text}`);
  return answer.text === '' ? undefined : JSON.parse(answer.text);
}

/** Milliseconds from now until `seen` holds on the other instance. */
async function timeUntil(seen, what) {
  const started = performance.now();
  await waitFor(seen, GIVE_UP_MS, what);
  return performance.now() - started;
}

export async function postgresPropagation(ctx) {
  const dir = ctx.dir('postgres-propagation');
  const { instances, project } = await postgresInstances(ctx, dir, 2);
  const [a, b] = instances;
  const { samples } = ctx.options.propagation;
  return measuring(instances, async () => {
    const times = { config: [], created: [], revoked: [] };
    for (let i = 0; i < samples; i++) {
      const title = `Go Pro ${ctx.nonce()}`;
      await expectOk(a, project.secret, 'PUT', `/api/paywalls/${PAYWALL_ID}`, {
        ...PAYWALL,
        strings: { ...PAYWALL.strings, en: { ...PAYWALL.strings.en, title } },
      });
      await expectOk(a, project.secret, 'POST', `/api/paywalls/${PAYWALL_ID}/publish`);
      times.config.push(
        await timeUntil(
          async () => (await call(b, project.sdk, 'GET', `/api/sdk/config?paywallId=${PAYWALL_ID}&userId=u${i}&locale=en`)).text.includes(title),
          `instance B did not serve "${title}"`,
        ),
      );
      const key = await expectOk(a, project.secret, 'POST', '/api/keys', { scope: 'secret' });
      times.created.push(await timeUntil(async () => (await call(b, key.key, 'GET', '/api/keys')).status === 200, 'instance B did not accept the new key'));
      await expectOk(a, project.secret, 'DELETE', `/api/keys/${key.id}`);
      times.revoked.push(await timeUntil(async () => (await call(b, key.key, 'GET', '/api/keys')).status === 401, 'instance B did not refuse the revoked key'));
      assertAlive(a, b);
    }
    const kinds = [
      ['config', 'a paywall published through A, until B resolves it'],
      ['created', 'a key created through A, until B accepts it'],
      ['revoked', 'a key revoked through A, until B refuses it'],
    ];
    for (const [kind] of kinds) times[kind].sort((x, y) => x - y);
    const slowest = Math.max(...kinds.map(([kind]) => times[kind].at(-1)));
    return {
      rows: kinds.map(([kind, text]) =>
        row(`PostgreSQL propagation between two instances: ${text}`, {
          paywalld: f.ms(percentile(times[kind], 50)),
          p50: f.ms(percentile(times[kind], 50)),
          p99: f.ms(percentile(times[kind], 99)),
        }),
      ),
      details: [
        `PostgreSQL propagation: ${samples} samples of each, from A's answer to the write until B answers accordingly (B polled every 5 ms, one request at a time).`,
        ...kinds.map(([kind, text]) => `  ${text}: ${f.list(times[kind], (x) => x.toFixed(0))} ms`),
      ],
      targets: [
        {
          text: `a change made through one instance is served by the others within ${PROMISE_MS / 1000} s (docs/operations/scale-out.md)`,
          measured: `slowest ${f.ms(slowest)}`,
          met: slowest < PROMISE_MS,
        },
      ],
    };
  });
}
