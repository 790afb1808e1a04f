/**
 * What the analyses promise, checked by simulation of the statistics
 * functions (no server): in A/A tests read every day for 30 days, the
 * sequential analysis keeps the chance of ever seeing p < 0.05 at 5 % (plus
 * the Monte Carlo margin), the fixed one does not; with four identical arms,
 * Holm keeps the chance that some arm shows p < 0.05 at 5 %. Seeded, so the
 * rates are the same on every run (docs/experiments.md quotes them).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Analysis, conversionEffect, holm, relativeInference } from '../../src/experiments/effects.ts';
import { random } from './workload.ts';

const RUNS = 2000;
const LOOKS = 30;
const USERS_PER_ARM_PER_DAY = 100;
const RATE = 0.1;
/** Three standard errors of a 5 % rate estimated from RUNS runs. */
const MARGIN = 3 * Math.sqrt((0.05 * 0.95) / RUNS);

interface Rates {
  /** Some look, some non-control arm with (unadjusted) p < 0.05. */
  everRaw: Record<Analysis, number>;
  /** Some look, some arm with Holm-adjusted p < 0.05. */
  everHolm: Record<Analysis, number>;
  /** At the last look only, fixed horizon. */
  lastRaw: number;
  lastHolm: number;
}

/** A/A runs of `arms` identical arms (arm 0 the control), read after each of LOOKS days. */
function simulate(arms: number, seed: number): Rates {
  const rand = random(seed);
  const count = { everRaw: { fixed: 0, sequential: 0 }, everHolm: { fixed: 0, sequential: 0 }, lastRaw: 0, lastHolm: 0 };
  const n = new Float64Array(arms);
  const x = new Float64Array(arms);
  for (let run = 0; run < RUNS; run++) {
    n.fill(0);
    x.fill(0);
    const hit = { everRaw: { fixed: false, sequential: false }, everHolm: { fixed: false, sequential: false } };
    for (let look = 1; look <= LOOKS; look++) {
      for (let arm = 0; arm < arms; arm++) {
        for (let u = 0; u < USERS_PER_ARM_PER_DAY; u++) if (rand() < RATE) x[arm]!++;
        n[arm]! += USERS_PER_ARM_PER_DAY;
      }
      for (const analysis of ['fixed', 'sequential'] as const) {
        const p: (number | null)[] = [];
        for (let arm = 1; arm < arms; arm++) p.push(relativeInference(conversionEffect(x[arm]!, n[arm]!, x[0]!, n[0]!), analysis)?.p_value ?? null);
        const raw = p.some((value) => value !== null && value < 0.05);
        const adjusted = holm(p).some((value) => value !== null && value < 0.05);
        if (raw) hit.everRaw[analysis] = true;
        if (adjusted) hit.everHolm[analysis] = true;
        if (look === LOOKS && analysis === 'fixed') {
          if (raw) count.lastRaw++;
          if (adjusted) count.lastHolm++;
        }
      }
    }
    for (const analysis of ['fixed', 'sequential'] as const) {
      if (hit.everRaw[analysis]) count.everRaw[analysis]++;
      if (hit.everHolm[analysis]) count.everHolm[analysis]++;
    }
  }
  const rate = (value: number) => value / RUNS;
  return {
    everRaw: { fixed: rate(count.everRaw.fixed), sequential: rate(count.everRaw.sequential) },
    everHolm: { fixed: rate(count.everHolm.fixed), sequential: rate(count.everHolm.sequential) },
    lastRaw: rate(count.lastRaw),
    lastHolm: rate(count.lastHolm),
  };
}

test('A/A with 30 daily looks: the sequential analysis keeps P(ever p < 0.05) at 5 %, the fixed one does not', (t) => {
  const rates = simulate(2, 20261126);
  t.diagnostic(`two arms: ${JSON.stringify(rates)}`);
  assert.ok(rates.everRaw.sequential <= 0.05 + MARGIN, `sequential: ${rates.everRaw.sequential}`);
  assert.ok(rates.everRaw.fixed > 0.05 + MARGIN, `fixed: ${rates.everRaw.fixed}`);
  // One look at the planned end is what the fixed analysis is valid for.
  assert.ok(rates.lastRaw <= 0.05 + MARGIN, `fixed at the last look: ${rates.lastRaw}`);
});

test('four identical arms: Holm keeps P(some arm p < 0.05) at 5 % at one look, and with the sequential analysis at every look', (t) => {
  const rates = simulate(4, 4);
  t.diagnostic(`four arms: ${JSON.stringify(rates)}`);
  assert.ok(rates.lastRaw > 0.05 + MARGIN, `unadjusted at the last look: ${rates.lastRaw}`);
  assert.ok(rates.lastHolm <= 0.05 + MARGIN, `Holm at the last look: ${rates.lastHolm}`);
  assert.ok(rates.everHolm.sequential <= 0.05 + MARGIN, `Holm, sequential, 30 looks: ${rates.everHolm.sequential}`);
  assert.ok(rates.everHolm.fixed > 0.05 + MARGIN, `Holm, fixed, 30 looks: ${rates.everHolm.fixed}`);
});
