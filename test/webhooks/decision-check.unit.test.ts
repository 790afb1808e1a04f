/**
 * The periodic decision check (src/webhooks/decisions.ts): every 10 minutes
 * the current phase of every live paywall of every project is computed, the
 * default split and each audience, so that a decision that moves on nobody's
 * request is still noticed; one failing paywall does not stop the others.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Logger } from '../../src/log.ts';
import { checkDecisionsPeriodically } from '../../src/webhooks/decisions.ts';

test('every 10 minutes each live paywall of each project is computed, each segment; a failure stops nothing', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const computed: string[] = [];
  const stop = checkDecisionsPeriodically(
    {
      projects: async () => [{ id: 'p1' }, { id: 'p2' }],
      liveIds: (project) => (project === 'p1' ? ['a', 'b'] : ['c']),
      audiences: async (_, paywall) => (paywall === 'a' ? ['fr'] : []),
      results: async (project, paywall, audience) => {
        computed.push(`${project}/${paywall}/${audience ?? 'default'}`);
        if (paywall === 'a' && audience === null) throw new Error('stats warming up');
      },
    },
    new Logger('error'),
  );
  t.after(stop);
  t.mock.timers.tick(9 * 60_000);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(computed, [], 'nothing before 10 minutes');
  t.mock.timers.tick(60_000);
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(computed, ['p1/a/default', 'p1/a/fr', 'p1/b/default', 'p2/c/default']);
  stop();
  t.mock.timers.tick(10 * 60_000);
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(computed.length, 4, 'stopped');
});
