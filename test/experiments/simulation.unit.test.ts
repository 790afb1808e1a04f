/**
 * What the readout promises, checked by simulation through the real
 * `buildResults` (test/experiments/simulation.ts; no server): A/A tests err
 * as often in each direction and no more than α, a decision once reached
 * stays, the plan's power is delivered within 3 points, CUPED keeps its
 * intervals' coverage, and a daily SRM check does not cry wolf. Small and
 * seeded, so every run gives the same rates; bench/experiments-simulation.ts
 * runs the large versions (docs/reference/experiments.md quotes both).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type PlanInput, usersNeededPerVariant } from '../../src/experiments/power.ts';
import type { Results } from '../../src/experiments/schema.ts';
import { type ArmModel, margin, type Scenario, simulate } from './simulation.ts';

/** Counts of decisions at the last look. */
function decisions(scenario: Scenario, runs: number, seed: number, extra?: (results: Results) => void): Record<string, number> {
  const count: Record<string, number> = { winner: 0, control_best: 0 };
  simulate(scenario, runs, seed, (results) => {
    count[results.decision.status] = (count[results.decision.status] ?? 0) + 1;
    extra?.(results);
  });
  return count;
}

/** `total` users per arm over `looks` equal looks. */
function spread(total: number, looks: number): number[] {
  return Array.from({ length: looks }, (_, i) => Math.round((total * (i + 1)) / looks) - Math.round((total * i) / looks));
}

/** The plan for the true rates, with the looks the scenario has (the readout plans with its own traffic the same way). */
function plan(input: Omit<PlanInput, 'perLook'>, target: number, looks: number): number {
  let n = usersNeededPerVariant({ ...input, perLook: null }, target)!;
  if (input.analysis === 'sequential') for (let i = 0; i < 4; i++) n = usersNeededPerVariant({ ...input, perLook: n / looks }, target)!;
  return n;
}

test('A/A, conversion: errors split evenly by direction and stay within α, sequential daily and fixed', (t) => {
  const runs = 1000;
  const arms: ArmModel[] = [{ rate: 0.1 }, { rate: 0.1 }];
  const sequential = decisions({ arms, usersPerLook: spread(10_000, 20), settings: {} }, runs, 11);
  const fixed = decisions({ arms, usersPerLook: [10_000], settings: { analysis: 'fixed' } }, runs, 12);
  t.diagnostic(`sequential ${JSON.stringify(sequential)}, fixed ${JSON.stringify(fixed)}`);
  for (const [name, count] of [
    ['sequential', sequential],
    ['fixed', fixed],
  ] as const) {
    const winner = count.winner! / runs;
    const worse = count.control_best! / runs;
    assert.ok(winner + worse <= 0.05 + margin(0.05, runs), `${name}: ${winner} + ${worse}`);
    assert.ok(Math.abs(winner - worse) <= margin(0.025, runs), `${name}: winner ${winner}, control_best ${worse}`);
  }
  // The fixed analysis read once errs at its level: about 2.5 % each way.
  assert.ok(fixed.winner! / runs > 0.025 - margin(0.025, runs) && fixed.control_best! / runs > 0.025 - margin(0.025, runs));
});

test('A/A, revenue as the primary metric: errors split evenly, and the uplift interval covers 0 at least 95 % of the time', (t) => {
  const runs = 600;
  const arm: ArmModel = { rate: 0.05, spend: { mu: 2, sigma: 1 } };
  let covered = 0;
  let read = 0;
  const count = decisions({ arms: [arm, arm], usersPerLook: spread(8000, 30), settings: { primary_metric: 'revenue:USD' } }, runs, 21, (results) => {
    const uplift = results.variants[1]!.revenue[0]!.uplift;
    if (uplift === null) return;
    read++;
    if (uplift.ci95[0] <= 0 && uplift.ci95[1] >= 0) covered++;
  });
  t.diagnostic(`${JSON.stringify(count)}, covered ${covered}/${read}`);
  assert.ok(Math.abs(count.winner! - count.control_best!) / runs <= margin(0.025, runs));
  assert.ok((count.winner! + count.control_best!) / runs <= 0.05);
  assert.ok(read > 0.9 * runs && covered / read >= 0.95 - margin(0.05, read), `${covered}/${read}`);
});

test('a decision once reached stays: the sequential readout never goes back to keep_running', () => {
  let reached = 0;
  const last = new Map<number, string>();
  simulate(
    { arms: [{ rate: 0.1 }, { rate: 0.115 }], usersPerLook: spread(12_000, 12), settings: {} },
    60,
    31,
    (results, _look, run) => {
      const before = last.get(run);
      const now = results.decision.status;
      if (before === 'winner' || before === 'control_best') assert.equal(now, before, `run ${run} flipped from ${before} to ${now}`);
      if (now === 'winner' && before !== 'winner') reached++;
      last.set(run, now);
    },
    Array.from({ length: 12 }, (_, i) => i),
  );
  assert.ok(reached > 5, `some runs decide midway: ${reached}`);
});

test('the plan delivers its promised 80 % power within 3 points: conversion fixed and sequential, revenue, CUPED', (t) => {
  const runs = 1200;
  const cases: { name: string; arms: ArmModel[]; looks: number; settings: Scenario['settings']; input: Omit<PlanInput, 'perLook'> }[] = [
    {
      name: 'conversion, fixed',
      arms: [{ rate: 0.2 }, { rate: 0.24 }],
      looks: 1,
      settings: { analysis: 'fixed', target_uplift: 0.2 },
      input: { analysis: 'fixed', comparisons: 1, kind: 'rate', mean: 0.2, variance: 0, reduction: 0 },
    },
    {
      name: 'conversion, sequential',
      arms: [{ rate: 0.2 }, { rate: 0.24 }],
      looks: 20,
      settings: { target_uplift: 0.2 },
      input: { analysis: 'sequential', comparisons: 1, kind: 'rate', mean: 0.2, variance: 0, reduction: 0 },
    },
  ];
  // Revenue: one user in ten pays e^N(2, 1); the variant's payments are 20 % larger.
  const spend = { mu: 2, sigma: 1 };
  const mean = 0.1 * Math.exp(spend.mu + spend.sigma ** 2 / 2);
  const variance = 0.1 * Math.exp(2 * spend.mu + 2 * spend.sigma ** 2) - mean * mean;
  cases.push({
    name: 'revenue, sequential',
    arms: [
      { rate: 0.1, spend },
      { rate: 0.1, spend, spendFactor: 1.2 },
    ],
    looks: 15,
    settings: { primary_metric: 'revenue:USD', target_uplift: 0.2 },
    input: { analysis: 'sequential', comparisons: 1, kind: 'mean', mean, variance, reduction: 0 },
  });
  // CUPED on conversion: 30 % of users bought before and convert at 20 % (5 % otherwise); the variant lifts both by 20 %.
  const pc = 0.7 * 0.05 + 0.3 * 0.2;
  const px = 0.3;
  const cov = 0.3 * 0.2 - px * pc;
  cases.push({
    name: 'conversion with CUPED, sequential',
    arms: [
      { rate: 0.05, history: 0.3, historyRate: 0.2 },
      { rate: 0.06, history: 0.3, historyRate: 0.24 },
    ],
    looks: 20,
    settings: { target_uplift: 0.2 },
    input: { analysis: 'sequential', comparisons: 1, kind: 'rate', mean: pc, variance: 0, reduction: (cov * cov) / (px * (1 - px) * pc * (1 - pc)) },
  });
  for (const [i, { name, arms, looks, settings, input }] of cases.entries()) {
    const n = plan(input, 0.2, looks);
    const count = decisions({ arms, usersPerLook: spread(n, looks), settings }, runs, 40 + i);
    const delivered = (count.winner ?? 0) / runs;
    t.diagnostic(`${name}: ${n} users per variant, promised 80 %, delivered ${(100 * delivered).toFixed(1)} %`);
    assert.ok(Math.abs(delivered - 0.8) <= 0.03, `${name}: delivered ${delivered}`);
  }
});

test('CUPED keeps the error rate and the coverage nominal, and narrows the intervals', (t) => {
  const runs = 800;
  const arm: ArmModel = { rate: 0.05, history: 0.3, historyRate: 0.2 };
  let narrower = 0;
  const aa = decisions({ arms: [arm, arm], usersPerLook: [6000], settings: { analysis: 'fixed' } }, runs, 51, (results) => {
    if (results.cuped.enabled && results.cuped.metrics[0]!.variance_reduction > 0) narrower++;
  });
  assert.equal(narrower, runs, 'CUPED is on (30 % have history) and removes variance');
  const errors = (aa.winner! + aa.control_best!) / runs;
  // Under a true +20 %, the adjusted relative interval covers the true lift of the mixture.
  const truth = (0.7 * 0.06 + 0.3 * 0.24) / (0.7 * 0.05 + 0.3 * 0.2) - 1;
  let covered = 0;
  simulate(
    {
      arms: [arm, { rate: 0.06, history: 0.3, historyRate: 0.24 }],
      usersPerLook: [6000],
      settings: { analysis: 'fixed' },
    },
    runs,
    52,
    (results) => {
      const ci = results.variants[1]!.uplift!.ci95;
      if (ci[0] <= truth && ci[1] >= truth) covered++;
    },
  );
  t.diagnostic(`A/A errors ${errors} (${aa.winner} up, ${aa.control_best} down), coverage ${covered / runs}`);
  assert.ok(errors <= 0.05 + margin(0.05, runs) && Math.abs(aa.winner! - aa.control_best!) / runs <= margin(0.025, runs));
  assert.ok(Math.abs(covered / runs - 0.95) <= margin(0.05, runs), `coverage ${covered / runs}`);
});

test('the SRM check looked at every day for 30 days raises no false alarm beyond its 0.1 %', (t) => {
  const runs = 1500;
  let alarms = 0;
  simulate({ arms: [{ rate: 0.05 }, { rate: 0.05 }], usersPerLook: spread(30_000, 30), settings: {} }, runs, 61, (results) => {
    if (results.srm.ok === false) alarms++;
  });
  t.diagnostic(`false alarms: ${alarms}/${runs}`);
  assert.ok(alarms / runs <= 0.001 + margin(0.001, runs), `${alarms}`);
});
