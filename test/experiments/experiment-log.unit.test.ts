/** ExperimentLog, the experiment logs' columns in blocks: entries across block boundaries, and the stored chunks read back. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHUNK_ENTRIES, ExperimentLog, timeAt } from '../../src/analytics/fold/experiment-log.ts';

const ENTRIES = 2 * CHUNK_ENTRIES + 1234;
const DAY_MS = 86_400_000;
/** Times in storage order: mostly close together, some weeks late or early, one fractional (each forces 64-bit times in its block). */
function timeOf(i: number): number {
  const now = 1_767_225_600_000 + i * 3;
  if (i === CHUNK_ENTRIES + 77) return now - 60 * DAY_MS;
  if (i === CHUNK_ENTRIES + 78) return now + 0.5;
  if (i % 1000 === 999) return now - 20 * DAY_MS;
  return now;
}
const entry = (i: number) => [(i * 7919) % 100_003, timeOf(i), i % 5, i / 4] as const;

function filled(withValues: boolean, from: number, to: number, log = new ExperimentLog(withValues)): ExperimentLog {
  for (let i = from; i < to; i++) log.push(...entry(i));
  return log;
}

function assertEntries(log: ExperimentLog, withValues: boolean): void {
  assert.equal(log.length, ENTRIES);
  for (let i = 0; i < ENTRIES; i++) {
    const [ordinal, time, code, value] = entry(i);
    const block = log.blocks[Math.floor(i / CHUNK_ENTRIES)]!;
    const j = i % CHUNK_ENTRIES;
    assert.equal(log.ordinal(i), ordinal);
    assert.equal(timeAt(block, j), time, `time ${i}`);
    assert.equal(block.codes[j], code);
    assert.equal(block.values?.[j], withValues ? value : undefined);
  }
}

for (const withValues of [false, true]) {
  test(`${withValues ? 'purchases' : 'exposures'}: entries past several blocks keep their place; full blocks hold exactly CHUNK_ENTRIES`, () => {
    const log = filled(withValues, 0, ENTRIES);
    assertEntries(log, withValues);
    assert.equal(log.blocks.length, 3);
    assert.equal(log.blocks[0]!.ordinals.length, CHUNK_ENTRIES);
    assert.equal(log.blocks[1]!.codes.length, CHUNK_ENTRIES);
    assert.equal(log.blocks[1]!.times?.length, CHUNK_ENTRIES);
    assert.ok(log.blocks[2]!.ordinals.length < 2 * 1234 + 256, 'the last block is sized near its entries');
    // Times 20 days early fit the 32-bit offsets; one 60 days early does not, and its block keeps 64-bit times.
    assert.deepEqual(
      log.blocks.map((block) => block.offsets !== undefined),
      [true, false, true],
    );
  });

  test(`${withValues ? 'purchases' : 'exposures'}: the stored chunks read back give the same log, which then grows on`, () => {
    const first = filled(withValues, 0, CHUNK_ENTRIES + 10);
    const stored = [first.chunk(0), first.chunk(1)];
    assert.deepEqual(
      stored.map(({ entries }) => entries),
      [CHUNK_ENTRIES, 10],
    );
    const loaded = new ExperimentLog(withValues);
    // A blob read from SQLite need not be aligned: hand over copies at an odd offset.
    for (const { entries, data } of stored) loaded.appendChunk(entries, Buffer.concat([Buffer.from([0]), data]).subarray(1));
    assert.equal(loaded.storedLength, CHUNK_ENTRIES + 10);
    filled(withValues, CHUNK_ENTRIES + 10, ENTRIES, loaded);
    assertEntries(loaded, withValues);
    assert.throws(() => loaded.appendChunk(1, first.chunk(1).data), /not full/);
  });
}
