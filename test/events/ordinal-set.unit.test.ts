/** OrdinalSet, the compressed set of user ordinals, against a plain Set over random workloads. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OrdinalSet } from '../../src/analytics/ordinal-set.ts';

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Sparse chunks stay arrays, dense ones (past 4,096 members) become bitmaps; ordinals span several chunks. */
function filled(seed: number, n: number, spread: number): { set: OrdinalSet; plain: Set<number> } {
  const next = random(seed);
  const set = new OrdinalSet();
  const plain = new Set<number>();
  for (let i = 0; i < n; i++) {
    const ordinal = Math.floor(next() * spread);
    assert.equal(set.add(ordinal), !plain.has(ordinal));
    plain.add(ordinal);
  }
  return { set, plain };
}

test('membership, size and ascending iteration match a plain Set, in array and bitmap chunks', () => {
  for (const [seed, n, spread] of [
    [1, 50, 1000],
    [2, 20_000, 70_000],
    [3, 30_000, 300_000],
    [4, 9000, 9000],
  ] as const) {
    const { set, plain } = filled(seed, n, spread);
    assert.equal(set.size, plain.size);
    assert.deepEqual(
      [...set],
      [...plain].sort((a, b) => a - b),
    );
    for (let probe = 0; probe < spread; probe += 97) assert.equal(set.has(probe), plain.has(probe));
  }
});

test('unionSize is the exact size of the union', () => {
  const parts = [filled(5, 5000, 200_000), filled(6, 40_000, 140_000), filled(7, 300, 70_000), filled(8, 0, 10)];
  const union = new Set<number>();
  for (const { plain } of parts) for (const ordinal of plain) union.add(ordinal);
  assert.equal(OrdinalSet.unionSize(parts.map((part) => part.set)), union.size);
  assert.equal(OrdinalSet.unionSize([parts[1]!.set]), parts[1]!.plain.size);
  assert.equal(OrdinalSet.unionSize([]), 0);
});

test('serialize and deserialize give back the same set', () => {
  for (const [seed, n, spread] of [
    [9, 0, 1],
    [10, 100, 500_000],
    [11, 50_000, 100_000],
  ] as const) {
    const { set, plain } = filled(seed, n, spread);
    const copy = OrdinalSet.deserialize(set.serialize());
    assert.equal(copy.size, plain.size);
    assert.deepEqual([...copy], [...set]);
    copy.add(spread + 1);
    assert.equal(copy.has(spread + 1), true);
  }
});

test('unionSize over a remembered union (unionChunks) of some sets equals the union of all', () => {
  const parts = [filled(12, 8000, 150_000), filled(13, 20_000, 140_000), filled(14, 100, 300_000), filled(15, 3000, 3000)];
  const union = new Set<number>();
  for (const { plain } of parts) for (const ordinal of plain) union.add(ordinal);
  const base = OrdinalSet.unionChunks(parts.slice(0, 2).map((part) => part.set));
  assert.equal(
    OrdinalSet.unionSize(
      parts.slice(2).map((part) => part.set),
      base,
    ),
    union.size,
  );
  assert.equal(OrdinalSet.unionSize([], base), new Set([...parts[0]!.plain, ...parts[1]!.plain]).size);
});
