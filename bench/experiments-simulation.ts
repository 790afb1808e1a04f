// The large versions of test/experiments/simulation.unit.test.ts (docs/reference/experiments.md, "Measured: what the readout
// promises"): simulated experiments read by the real buildResults, day by day, through test/experiments/simulation.ts.
//   A/A errors by direction: P(some variant significantly better) and P(some variant significantly worse) on the
//     primary metric by its adjusted p-value at the end (the readout does not flip back, so at the end is at some
//     look; with two arms these are the decisions winner and control_best), for conversion (2 and 4 arms, sequential
//     daily and fixed), revenue and CUPED; and how often the first variant's uplift interval covers 0;
//   power: the plan's users per variant for the true rates, then P(the right winner) at that size;
//   CUPED: coverage of the true lift under +20 %, and the SRM check's false alarms over 30 daily looks.
// Usage: node --import tsx bench/experiments-simulation.ts [RUNS] (default 4000; power cells run RUNS / 2)
import { type PlanInput, usersNeededPerVariant } from '../src/experiments/power.ts';
import type { Results } from '../src/experiments/schema.ts';
import { type ArmModel, margin, type Scenario, simulate } from '../test/experiments/simulation.ts';

const RUNS = Number(process.argv[2] ?? 4000);
const spend = { mu: 2, sigma: 1 };
const mean = 0.1 * Math.exp(spend.mu + spend.sigma ** 2 / 2);
const variance = 0.1 * Math.exp(2 * spend.mu + 2 * spend.sigma ** 2) - mean * mean;

const spread = (total: number, looks: number) =>
  Array.from({ length: looks }, (_, i) => Math.round((total * (i + 1)) / looks) - Math.round((total * i) / looks));
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;

function plan(input: Omit<PlanInput, 'perLook'>, target: number, looks: number): number {
  let n = usersNeededPerVariant({ ...input, perLook: null }, target)!;
  if (input.analysis === 'sequential') for (let i = 0; i < 4; i++) n = usersNeededPerVariant({ ...input, perLook: n / looks }, target)!;
  return n;
}

function run(scenario: Scenario, runs: number, seed: number, observe: (results: Results) => void): number {
  const started = process.hrtime.bigint();
  simulate(scenario, runs, seed, observe);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

console.log(`# A/A: errors by direction (${RUNS} runs each; ±${pct(margin(0.025, RUNS))} Monte Carlo margin at 2.5 %)`);
console.log('| experiment | significantly better | significantly worse | interval covers 0 | seconds |');
console.log('| --- | --- | --- | --- | --- |');
const conversion: ArmModel = { rate: 0.05 };
const revenue: ArmModel = { rate: 0.05, spend };
const history: ArmModel = { rate: 0.05, history: 0.3, historyRate: 0.2, spend };
type Figures = { uplift: Results['variants'][number]['uplift']; difference: number | null; p_value_adjusted: number | null };
const onConversion = (variant: Results['variants'][number]): Figures => variant;
const onRevenue = (variant: Results['variants'][number]): Figures => {
  const usd = variant.revenue[0];
  return { uplift: usd?.uplift ?? null, difference: usd?.difference?.value ?? null, p_value_adjusted: usd?.difference?.p_value_adjusted ?? null };
};
const aa: [string, Scenario, (variant: Results['variants'][number]) => Figures][] = [
  ['conversion, 2 arms, sequential, 30 daily looks', { arms: [conversion, conversion], usersPerLook: spread(30_000, 30), settings: {} }, onConversion],
  ['conversion, 2 arms, fixed, one look', { arms: [conversion, conversion], usersPerLook: [30_000], settings: { analysis: 'fixed' } }, onConversion],
  [
    'conversion, 4 arms, sequential, Holm, 30 daily looks',
    { arms: [conversion, conversion, conversion, conversion], usersPerLook: spread(30_000, 30), settings: {} },
    onConversion,
  ],
  [
    'revenue primary, 2 arms, sequential, 30 daily looks',
    { arms: [revenue, revenue], usersPerLook: spread(10_000, 30), settings: { primary_metric: 'revenue:USD' } },
    onRevenue,
  ],
  [
    'revenue primary, about 30 payers per arm (minimum 100)',
    { arms: [revenue, revenue], usersPerLook: spread(600, 30), settings: { primary_metric: 'revenue:USD' } },
    onRevenue,
  ],
  ['conversion with CUPED, sequential, 30 daily looks', { arms: [history, history], usersPerLook: spread(20_000, 30), settings: {} }, onConversion],
];
for (const [i, [name, scenario, figures]] of aa.entries()) {
  let winner = 0;
  let worse = 0;
  let read = 0;
  let covered = 0;
  const seconds = run(scenario, RUNS, 100 + i, (results) => {
    const significant = results.variants
      .slice(1)
      .map(figures)
      .filter((f) => f.p_value_adjusted !== null && f.p_value_adjusted < 0.05);
    if (significant.some((f) => f.difference! > 0)) winner++;
    if (significant.some((f) => f.difference! < 0)) worse++;
    const ci = figures(results.variants[1]!).uplift?.ci95;
    if (!ci) return;
    read++;
    if (ci[0] <= 0 && ci[1] >= 0) covered++;
  });
  console.log(`| ${name} | ${pct(winner / RUNS)} | ${pct(worse / RUNS)} | ${read === 0 ? 'no interval' : pct(covered / read)} | ${seconds.toFixed(0)} |`);
}

const POWER_RUNS = Math.round(RUNS / 2);
console.log(`\n# Power: promised 80 % (${POWER_RUNS} runs each; ±${pct(margin(0.2, POWER_RUNS))} Monte Carlo margin)`);
console.log('| plan | users per variant | delivered | seconds |');
console.log('| --- | --- | --- | --- |');
const pc = 0.7 * 0.05 + 0.3 * 0.2;
const cov = 0.3 * 0.2 - 0.3 * pc;
const grid: { name: string; arms: ArmModel[]; looks: number; settings: Scenario['settings']; input: Omit<PlanInput, 'perLook'> }[] = [];
for (const analysis of ['fixed', 'sequential'] as const) {
  for (const k of [2, 4]) {
    grid.push({
      name: `conversion 5 % → 5.5 %, ${k} arms, ${analysis}`,
      arms: [{ rate: 0.05 }, { rate: 0.055 }, ...Array.from({ length: k - 2 }, () => ({ rate: 0.05 }))],
      looks: analysis === 'fixed' ? 1 : 20,
      settings: { analysis },
      input: { analysis, comparisons: k - 1, kind: 'rate', mean: 0.05, variance: 0, reduction: 0 },
    });
  }
  grid.push({
    name: `revenue +20 %, ${analysis}`,
    arms: [
      { rate: 0.1, spend },
      { rate: 0.1, spend, spendFactor: 1.2 },
    ],
    looks: analysis === 'fixed' ? 1 : 20,
    settings: { analysis, primary_metric: 'revenue:USD', target_uplift: 0.2 },
    input: { analysis, comparisons: 1, kind: 'mean', mean, variance, reduction: 0 },
  });
  grid.push({
    name: `conversion +20 % with CUPED, ${analysis}`,
    arms: [
      { rate: 0.05, history: 0.3, historyRate: 0.2 },
      { rate: 0.06, history: 0.3, historyRate: 0.24 },
    ],
    looks: analysis === 'fixed' ? 1 : 20,
    settings: { analysis, target_uplift: 0.2 },
    input: { analysis, comparisons: 1, kind: 'rate', mean: pc, variance: 0, reduction: (cov * cov) / (0.3 * 0.7 * pc * (1 - pc)) },
  });
}
for (const [i, { name, arms, looks, settings, input }] of grid.entries()) {
  const target = settings.target_uplift ?? 0.1;
  const n = plan(input, target, looks);
  let winner = 0;
  const seconds = run({ arms, usersPerLook: spread(n, looks), settings }, POWER_RUNS, 200 + i, (results) => {
    if (results.decision.status === 'winner' && results.decision.variant === 'v1') winner++;
  });
  console.log(`| ${name} | ${n.toLocaleString('en')} | ${pct(winner / POWER_RUNS)} | ${seconds.toFixed(0)} |`);
}

console.log(`\n# Coverage and the SRM check (${RUNS} runs each)`);
let covered = 0;
const truth = (0.7 * 0.06 + 0.3 * 0.24) / pc - 1;
run({ arms: [history, { rate: 0.06, history: 0.3, historyRate: 0.24 }], usersPerLook: [20_000], settings: { analysis: 'fixed' } }, RUNS, 300, (results) => {
  const ci = results.variants[1]!.uplift?.ci95;
  if (ci && ci[0] <= truth && ci[1] >= truth) covered++;
});
console.log(`CUPED, +20 %, fixed: the uplift interval covers the true lift in ${pct(covered / RUNS)}`);
let alarms = 0;
run({ arms: [conversion, conversion], usersPerLook: spread(30_000, 30), settings: {} }, RUNS, 301, (results) => {
  if (results.srm.ok === false) alarms++;
});
console.log(`SRM, healthy split, 30 daily looks: srm_failed at the end (so at some look) in ${pct(alarms / RUNS)}`);
