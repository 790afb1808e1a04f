/**
 * Simulated experiments read by the real readout: users drawn arm by arm and
 * day by day, folded into the counts and moments a phase fold answers with
 * (computed here directly, two-pass per day), and `buildResults` run on them
 * as the server runs it. What the A/A, power and CUPED simulations of
 * simulation.unit.test.ts and bench/experiments-simulation.ts observe.
 */

import type { FoldDay, FoldResult, VariantFigures } from '../../src/analytics/fold/fold-types.ts';
import { combine, EMPTY_PAIRED, type Paired } from '../../src/experiments/cuped.ts';
import { buildResults, readSettings } from '../../src/experiments/results.ts';
import type { Results } from '../../src/experiments/schema.ts';
import type { ExperimentSettings } from '../../src/paywalls/document/experiment.ts';
import { random } from './workload.ts';

/** One arm's users: each converts with `rate` (`historyRate` when they bought before, with probability `history`), paying e^N(μ, σ²) when `spend` is set. */
export interface ArmModel {
  rate: number;
  history?: number;
  historyRate?: number;
  /** Log-normal spend of a converting user, and of a user with history before the exposure. */
  spend?: { mu: number; sigma: number };
  /** Multiplies each payment: a revenue lift beyond the conversion lift. */
  spendFactor?: number;
}

export interface Scenario {
  arms: ArmModel[];
  /** New users of each arm per look (a day); the last look is the planned end. */
  usersPerLook: number[];
  settings: ExperimentSettings;
  /** Arms that are holdouts. */
  holdouts?: number[];
}

/** A standard normal draw (Box–Muller). */
function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function emptyFigures(): VariantFigures {
  return {
    exposed_users: 0,
    conversions: 0,
    trial_starts: 0,
    trial_conversions: 0,
    history: 0,
    converted_with_history: 0,
    refunded_users: 0,
    trial_cancellations: 0,
    revenue: [],
  };
}

/** A binomial draw by geometric waiting times: exact, and costs n·p draws rather than n. */
function binomial(rand: () => number, n: number, p: number): number {
  if (p <= 0 || n === 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(rand, n, 1 - p);
  const log = Math.log1p(-p);
  let count = 0;
  for (let at = Math.floor(Math.log(1 - rand()) / log); at < n; at += 1 + Math.floor(Math.log(1 - rand()) / log)) count++;
  return count;
}

/** The moments of n users of whom only the m listed have a non-zero y or x, two-pass, the zeros joined analytically. */
function sparseMoments(y: Float64Array, x: Float64Array, m: number, n: number): Paired {
  if (n === 0) return EMPTY_PAIRED;
  let meanY = 0;
  let meanX = 0;
  for (let i = 0; i < m; i++) {
    meanY += y[i]!;
    meanX += x[i]!;
  }
  meanY /= n;
  meanX /= n;
  let m2y = (n - m) * meanY * meanY;
  let m2x = (n - m) * meanX * meanX;
  let c = (n - m) * meanY * meanX;
  for (let i = 0; i < m; i++) {
    m2y += (y[i]! - meanY) ** 2;
    m2x += (x[i]! - meanX) ** 2;
    c += (y[i]! - meanY) * (x[i]! - meanX);
  }
  return { n, meanY, m2y, meanX, m2x, c };
}

/**
 * Runs `runs` experiments of the scenario from `seed`, calling `observe`
 * with the results of every look in `at` (default: the last one only).
 */
export function simulate(scenario: Scenario, runs: number, seed: number, observe: (results: Results, look: number, run: number) => void, at?: number[]): void {
  const rand = random(seed);
  const k = scenario.arms.length;
  const ids = scenario.arms.map((_, i) => (i === 0 ? 'control' : `v${i}`));
  const holdouts = (scenario.holdouts ?? []).map((i) => ids[i]!);
  const weights: Record<string, number> = Object.create(null);
  for (const id of ids) weights[id] = 1;
  const segment = { variants: ids, weights, control: 'control', holdouts };
  const read = readSettings(scenario.settings, undefined);
  const phase = { number: 1, started_at: '2026-01-01T00:00:00.000Z', ended_at: null, revision: 1, weights };
  const looks = scenario.usersPerLook.length;
  const observed = new Set(at ?? [looks - 1]);
  const most = Math.max(...scenario.usersPerLook);
  const y = new Float64Array(2 * most);
  const x = new Float64Array(2 * most);
  for (let run = 0; run < runs; run++) {
    const figures = scenario.arms.map(emptyFigures);
    const moments: Paired[] = scenario.arms.map(() => EMPTY_PAIRED);
    const payers = new Float64Array(k);
    const days: FoldDay[] = [];
    for (let look = 0; look < looks; look++) {
      const n = scenario.usersPerLook[look]!;
      scenario.arms.forEach((arm, a) => {
        const f = figures[a]!;
        const known = binomial(rand, n, arm.history ?? 0);
        const convertedKnown = binomial(rand, known, arm.historyRate ?? arm.rate);
        const converted = convertedKnown + binomial(rand, n - known, arm.rate);
        f.exposed_users += n;
        f.history += known;
        f.conversions += converted;
        f.converted_with_history += convertedKnown;
        if (!arm.spend) return;
        // Listed first: the users with history (the first convertedKnown of them converted), then the other converted users.
        const listed = known + converted - convertedKnown;
        const draw = () => Math.exp(arm.spend!.mu + arm.spend!.sigma * gaussian(rand));
        for (let u = 0; u < listed; u++) {
          x[u] = u < known ? draw() : 0;
          y[u] = u < convertedKnown || u >= known ? (arm.spendFactor ?? 1) * draw() : 0;
        }
        payers[a]! += converted;
        moments[a] = combine(moments[a]!, sparseMoments(y, x, listed, n));
      });
      const snapshot: FoldDay = {
        day: `2026-01-${String(1 + (look % 28)).padStart(2, '0')}`,
        exposed_users: figures.map((f) => f.exposed_users),
        conversions: figures.map((f) => f.conversions),
        trial_starts: figures.map(() => 0),
        history: figures.map((f) => f.history),
        converted_with_history: figures.map((f) => f.converted_with_history),
        revenue: scenario.arms[0]!.spend ? [moments.map((m, a) => ({ payers: payers[a]!, moments: m }))] : [],
      };
      if (look < looks - 1) days.push(snapshot);
      if (!observed.has(look)) continue;
      const fold: FoldResult = {
        multiple_exposure_users: 0,
        currencies: scenario.arms[0]!.spend ? [{ currency: 'USD', cap: null }] : [],
        variants: figures.map((f, a) => ({
          ...f,
          revenue: scenario.arms[0]!.spend
            ? [{ currency: 'USD', total: moments[a]!.meanY * moments[a]!.n, gross: 0, refunded: 0, payers: payers[a]!, users_capped: 0, moments: moments[a]! }]
            : [],
        })),
        days: [...days, snapshot],
      };
      observe(buildResults('sim', null, phase, segment, fold, read), look, run);
    }
  }
}

/** Three standard errors of a share p estimated from `runs` runs: the Monte Carlo margin of a simulated rate. */
export function margin(p: number, runs: number): number {
  return 3 * Math.sqrt((p * (1 - p)) / runs);
}
