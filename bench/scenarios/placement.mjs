/**
 * Scenario 8: GET /api/sdk/placement against GET /api/sdk/config of the same
 * paywall on the same paywalld, both driven by bench/wrk/resolve.lua (the
 * users, locales, platforms and countries of the resolve scenario; the
 * placement's path where resolve's is). The placement has two rules, an
 * audience, a 5 % holdout and a daily frequency cap, so each answer pays
 * for a rule match, a holdout hash and a look at the user's opens before
 * the paywall's own choice. Issue 37's target: a placement answer costs at
 * most 1.3 × a plain resolve, in server CPU time per request. A plain
 * resolve's own speed (a paywall served without placements as fast as
 * before) is the resolve scenario's, against bare uWS.
 */
import { checkingAnswers } from '../lib/answers.mjs';
import { PAYWALL_ID } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld } from '../lib/paywalld.mjs';
import { withUsage } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { wrk } from '../lib/wrk.mjs';
import { describeRequests, USERS } from './resolve.mjs';

const PLACEMENT = 'home';
/** The placement: the audience of the fixture's US-on-iOS users first, then everyone; both with a holdout and a cap. */
const DOCUMENT = {
  name: 'Home',
  rules: [
    { audience: { country: 'US', platform: 'ios' }, paywall_id: PAYWALL_ID, holdout_percent: 5, frequency: { limit: 3, per: 'day' } },
    { paywall_id: PAYWALL_ID, holdout_percent: 5, frequency: { limit: 3, per: 'day' } },
  ],
};

export async function placement(ctx) {
  const paywalld = await servingPaywalld(ctx, ctx.dir('placement'));
  paywalld.name = 'paywalld';
  const put = await fetch(`${paywalld.url}/api/placements/${PLACEMENT}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${paywalld.project.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(DOCUMENT),
  });
  if (put.status !== 201) throw new Error(`PUT /api/placements/${PLACEMENT}: ${put.status} ${await put.text()}`);
  const { connections } = ctx.options.placement;
  ctx.log(`  ${connections} connections; userId over ${f.count(USERS)} users; the same paywall through /api/sdk/config and a placement`);
  return measuring([paywalld], async () => {
    const contender = (name, placementId) => ({
      name,
      describe: describeRequests,
      run: async (seconds) => {
        const args = [paywalld.project.sdk, PAYWALL_ID, String(USERS), 'pool', ctx.nonce(), ...(placementId ? [placementId] : [])];
        const result = await checkingAnswers(paywalld, () =>
          withUsage(paywalld.pid, () => wrk({ url: paywalld.url, script: 'resolve.lua', scriptArgs: args, connections, seconds })),
        );
        assertAlive(paywalld);
        return { ...result, perCpuSecond: result.perSecond / result.cpu };
      },
    });
    const results = await alternate([contender('resolve'), contender('placement', PLACEMENT)], ctx);
    const [resolved, placed] = [results.get('resolve'), results.get('placement')];
    // CPU per request: a placement answer's cost over a resolve's is resolve's requests per CPU-second over the placement's.
    const cost = ratios(resolved, placed, 'perCpuSecond');
    const perCpuCell = (rounds) => `${f.count(medianOf(rounds, 'perCpuSecond'))} req/CPU-s`;
    return {
      rows: [
        row(`placement, ${connections} conns — vs resolve of the same paywall, server CPU per request`, {
          paywalld: perCpuCell(placed),
          baseline: perCpuCell(resolved),
          ratio: f.ratio(cost.median),
          p50: f.ms(medianOf(placed, 'p50')),
          p99: f.ms(medianOf(placed, 'p99')),
        }),
      ],
      details: [
        `placement: ${connections} connections, userId over ${f.count(USERS)} users; two rules (an audience, a 5 % holdout, a daily cap of 3);`,
        `  requests per server CPU-second per round: placement ${f.list(placed, (r) => f.count(r.perCpuSecond))}; resolve ${f.list(resolved, (r) => f.count(r.perCpuSecond))}`,
        `  cost of a placement answer / a resolve per round: ${f.list(cost.perRound, f.ratio)}`,
        `  req/s per round: placement ${f.list(placed, (r) => f.count(r.perSecond))}; resolve ${f.list(resolved, (r) => f.count(r.perSecond))}`,
      ],
      targets: [
        {
          text: 'a placement answer costs ≤ 1.3 × a resolve of the same paywall (server CPU per request)',
          measured: f.ratio(cost.median),
          met: cost.median <= 1.3,
        },
      ],
    };
  });
}
