/**
 * The whole derived state as one buffer and back, for a checkpoint kept as
 * one value (PostgreSQL's shared checkpoints, docs/operations/scale-out.md): the same
 * parts the SQLite checkpoint stores as rows (the users, the day sets, the
 * experiment segments with their log chunks), restored with the same calls
 * (checkpoint-load.ts), serialized by V8 (Buffers are copied as bytes, not
 * as JSON). Storage-free.
 */
import v8 from 'node:v8';
import { CHUNK_ENTRIES } from './fold/experiment-log.ts';
import { OrdinalSet } from './ordinal-set.ts';
import type { DerivedState } from './state.ts';

/** The layout's version: a snapshot of another is not loaded (the state is then rebuilt from the events). */
export const SNAPSHOT_FORMAT = 1;

type Chunks = [entries: number, data: Uint8Array][];

interface Snapshot {
  format: number;
  users: [projectId: string, userIds: string[]][];
  groups: [
    projectId: string,
    paywallId: string,
    variantId: string,
    day: number,
    counts: [string, number][],
    users: Uint8Array,
    typeUsers: [string, Uint8Array][],
  ][];
  segments: [projectId: string, paywallId: string, audience: string, variants: string[], currencies: string[], exposures: Chunks, purchases: Chunks][];
  unrepresentable: number;
}

export function snapshotState(state: DerivedState): Buffer {
  const users = new Map<string, string[]>();
  for (const [projectId, , userId] of state.users.all()) {
    let ids = users.get(projectId);
    if (!ids) users.set(projectId, (ids = []));
    ids.push(userId);
  }
  const snapshot: Snapshot = { format: SNAPSHOT_FORMAT, users: [...users], groups: [], segments: [], unrepresentable: state.unrepresentable };
  for (const [projectId, paywallId, variantId, day, group] of state.entries()) {
    const typeUsers = [...group.typeUsers].map(([type, set]): [string, Uint8Array] => [type, set.serialize()]);
    snapshot.groups.push([projectId, paywallId, variantId, day, [...group.counts], group.users.serialize(), typeUsers]);
  }
  for (const [projectId, paywallId, audience, segment] of state.experiments.entries()) {
    const chunks = (log: typeof segment.exposures): Chunks => {
      const all: Chunks = [];
      for (let n = 0; n * CHUNK_ENTRIES < log.length; n++) {
        const { entries, data } = log.chunk(n);
        all.push([entries, data]);
      }
      return all;
    };
    snapshot.segments.push([
      projectId,
      paywallId,
      audience,
      [...segment.variants],
      [...segment.currencies],
      chunks(segment.exposures),
      chunks(segment.purchases),
    ]);
  }
  return v8.serialize(snapshot);
}

/** Restores a snapshot into an empty state; false (the state untouched) when the buffer holds another format. */
export function restoreState(state: DerivedState, buffer: Uint8Array): boolean {
  const snapshot = v8.deserialize(buffer) as Snapshot;
  if (snapshot?.format !== SNAPSHOT_FORMAT) return false;
  for (const [projectId, userIds] of snapshot.users) for (const [ordinal, userId] of userIds.entries()) state.users.restore(projectId, ordinal, userId);
  for (const [projectId, paywallId, variantId, day, counts, users, typeUsers] of snapshot.groups) {
    const group = state.group(projectId, paywallId, variantId, day);
    group.users = OrdinalSet.deserialize(Buffer.from(users));
    for (const [type, count] of counts) {
      group.counts.set(type, count);
      state.addType(projectId, type);
    }
    for (const [type, set] of typeUsers) group.typeUsers.set(type, OrdinalSet.deserialize(Buffer.from(set)));
  }
  for (const [projectId, paywallId, audience, variants, currencies, exposures, purchases] of snapshot.segments) {
    const segment = state.experiments.segment(projectId, paywallId, audience);
    segment.variants.push(...variants);
    segment.currencies.push(...currencies);
    for (const [entries, data] of exposures) segment.exposures.appendChunk(entries, Buffer.from(data));
    for (const [entries, data] of purchases) {
      const from = segment.purchases.length;
      segment.purchases.appendChunk(entries, Buffer.from(data));
      for (let i = from; i < segment.purchases.length; i++) segment.link(i);
    }
  }
  state.unrepresentable = snapshot.unrepresentable;
  return true;
}
