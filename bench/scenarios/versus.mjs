/**
 * Scenario: this build against the build of an earlier commit (--against
 * REF; by default HEAD's parent, or HEAD itself when src/ has uncommitted
 * changes), on the same machine in the same run: resolve (with bare uWS as
 * the common ceiling) and events, each build on a database of its own,
 * driven by the same wrk scripts in alternating rounds, so that a slow spell
 * of the machine falls on both builds alike and the ratio shows what the
 * change brings. The builds are compared per server CPU-second (the CPU
 * time a server spends per request is its own, whoever sets the pace; see
 * resolve.mjs) and by throughput.
 */
import path from 'node:path';
import { checkingAnswers } from '../lib/answers.mjs';
import { BATCH } from '../lib/events.mjs';
import { resolveBodySize } from '../lib/fixture.mjs';
import * as f from '../lib/format.mjs';
import { servingPaywalld, startBaseline } from '../lib/paywalld.mjs';
import { buildCommit, commitOf, defaultRef } from '../lib/previous-build.mjs';
import { withUsage } from '../lib/processes.mjs';
import { alternate, medianOf, ratios } from '../lib/rounds.mjs';
import { assertAlive, measuring, row } from '../lib/scenario.mjs';
import { ScenarioError } from '../lib/wrk.mjs';
import { assertStored, describeEvents, ingest, storedEvents } from './events.mjs';
import { describeRequests, resolving } from './resolve.mjs';

/** Below this share of the earlier build's figure, the change is a regression (the rounds of a quiet machine vary by a few per cent). */
const NO_REGRESSION = 0.95;
const BASELINES = path.join(import.meta.dirname, '..', 'baselines');

const perCpu = (r) => ({ ...r, perCpuSecond: r.perSecond / r.cpu });

export async function versus(ctx) {
  const ref = ctx.options.against ?? defaultRef();
  const commit = commitOf(ref);
  if (!commit) {
    if (ctx.options.against !== undefined) throw new ScenarioError(`--against ${ref}: no such commit in this clone`);
    // A shallow clone (CI's may be) has no parent to build: say so rather than fail the run.
    return {
      rows: [row(`versus ${ref}: skipped, this clone does not have ${ref}`, { paywalld: '—' })],
      targets: [],
      details: [`versus: ${ref} is not in this clone (shallow?); nothing compared`],
    };
  }
  const dir = ctx.dir('versus');
  ctx.log(`  building ${commit.short} (${ref}: ${commit.subject})`);
  const earlier = await buildCommit(commit, path.join(dir, 'build'));
  const mine = await servingPaywalld(ctx, ctx.dir('versus/this'));
  mine.name = 'this build';
  const theirs = await servingPaywalld({ ...ctx, dist: earlier }, ctx.dir('versus/earlier'));
  theirs.name = `${commit.short} (${ref})`;
  const size = await resolveBodySize(mine.url, mine.project.sdk);
  const uws = await startBaseline(path.join(BASELINES, 'uws-cached.mjs'), [ctx.dist.uwsAddon, String(size)], path.join(dir, 'uws.log'));
  uws.name = 'bare uWS';
  const builds = [mine, theirs];
  const { connections } = ctx.options.resolve;
  const { eventConnections } = ctx.options.versus;
  const acknowledged = new Map(builds.map((b) => [b, 0]));
  const slack = new Map(builds.map((b) => [b, 0]));
  const result = await measuring([...builds, uws], async () => {
    const resolver = (server) => ({
      name: server.name,
      describe: describeRequests,
      run: async (seconds) => {
        const key = (server === uws ? mine : server).project.sdk;
        const measured = await checkingAnswers(server, () => withUsage(server.pid, () => resolving(ctx, server, key, { connections, seconds })));
        assertAlive(...builds, uws);
        return perCpu(measured);
      },
    });
    ctx.log(`  resolve, ${connections} connections`);
    const resolved = await alternate([mine, theirs, uws].map(resolver), ctx);
    const poster = (server, conns) => ({
      name: `${server.name}, ${conns} conns`,
      describe: describeEvents,
      run: async (seconds) => {
        const measured = await withUsage(server.pid, () => ingest(ctx, server, { connections: conns, seconds }));
        assertAlive(...builds);
        acknowledged.set(server, acknowledged.get(server) + measured.events);
        slack.set(server, slack.get(server) + conns * BATCH);
        return perCpu(measured);
      },
    });
    ctx.log(`  events, ${eventConnections.join(' and ')} connections`);
    const posted = await alternate(
      eventConnections.flatMap((conns) => builds.map((server) => poster(server, conns))),
      ctx,
    );
    return compare({ commit, ref, earlier, connections, eventConnections, resolved, posted, names: { mine: mine.name, theirs: theirs.name, uws: uws.name } });
  });
  // The servers have stopped: every event either acknowledged must be in its database.
  for (const server of builds) {
    const stored = storedEvents(ctx, server.file);
    assertStored(stored, acknowledged.get(server), slack.get(server));
    result.details.push(`  ${server.name}: ${f.count(stored)} events stored for ${f.count(acknowledged.get(server))} acknowledged (all present)`);
  }
  return result;
}

/**
 * One comparison's table row (this build's and the earlier one's median per
 * server CPU-second, their ratio, this build's latencies) and its
 * no-regression target; the per-round ratios.
 */
function noRegression(rows, targets, commit, { what, label, unit: [cellUnit, rowUnit], connections, mine, theirs }) {
  const ratio = ratios(mine, theirs, 'perCpuSecond');
  const cell = (rounds) => `${f.count(medianOf(rounds, 'perCpuSecond'))} ${cellUnit}/CPU-s`;
  rows.push(
    row(`${label} — this build vs ${commit.short}, ${rowUnit} per server CPU-second`, {
      paywalld: cell(mine),
      baseline: cell(theirs),
      ratio: f.ratio(ratio.median),
      p50: f.ms(medianOf(mine, 'p50')),
      p99: f.ms(medianOf(mine, 'p99')),
    }),
  );
  const where = connections === undefined ? '' : `, ${connections} connections`;
  targets.push({
    text: `${what} per server CPU-second ≥ ${NO_REGRESSION} × ${commit.short}'s${where} (no regression)`,
    measured: f.ratio(ratio.median),
    met: ratio.median >= NO_REGRESSION,
  });
  return ratio;
}

function compare({ commit, ref, earlier, connections, eventConnections, resolved, posted, names }) {
  const rows = [];
  const targets = [];
  const details = [
    `versus: this build against ${commit.short} (${ref}: ${commit.subject}), built from git archive with this checkout's node_modules (the lockfiles are ${earlier.dependencies});`,
    '  both on databases of their own, the same wrk scripts, alternating rounds; ratios are this build / the earlier one, medians of per-round ratios.',
  ];
  const [mine, theirs, bare] = [names.mine, names.theirs, names.uws].map((name) => resolved.get(name));
  const perCpuRatio = noRegression(rows, targets, commit, {
    what: 'resolve',
    label: `resolve, ${connections} conns`,
    unit: ['req', 'requests'],
    mine,
    theirs,
  });
  const throughput = ratios(mine, theirs, 'perSecond');
  details.push(
    `  resolve, req per server CPU-second per round: this ${f.list(mine, (r) => f.count(r.perCpuSecond))}; ${commit.short} ${f.list(theirs, (r) => f.count(r.perCpuSecond))}; bare uWS ${f.list(bare, (r) => f.count(r.perCpuSecond))}`,
    `  resolve, ratio per round: this / ${commit.short} ${f.list(perCpuRatio.perRound, f.ratio)} per CPU-s, ${f.list(throughput.perRound, f.ratio)} in req/s`,
    `  resolve vs bare uWS per server CPU-second (median of rounds): this ${f.ratio(ratios(mine, bare, 'perCpuSecond').median)}, ${commit.short} ${f.ratio(ratios(theirs, bare, 'perCpuSecond').median)}`,
  );
  for (const conns of eventConnections) {
    const a = posted.get(`${names.mine}, ${conns} conns`);
    const b = posted.get(`${names.theirs}, ${conns} conns`);
    noRegression(rows, targets, commit, {
      what: 'events',
      label: `events, ${conns} conns`,
      unit: ['events', 'events'],
      connections: conns,
      mine: a,
      theirs: b,
    });
    details.push(
      `  events, ${conns} conns, per server CPU-second per round: this ${f.list(a, (r) => f.count(r.perCpuSecond))}; ${commit.short} ${f.list(b, (r) => f.count(r.perCpuSecond))}`,
      `  events, ${conns} conns, events/s per round: this ${f.list(a, (r) => f.count(r.perSecond))}; ${commit.short} ${f.list(b, (r) => f.count(r.perSecond))} (ratio ${f.ratio(ratios(a, b, 'perSecond').median)})`,
    );
  }
  return { rows, targets, details };
}
