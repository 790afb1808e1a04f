/**
 * Reads the stored derived tables back into memory at start: the users, the
 * day sets and the experiment segments with their log chunks, as the last
 * checkpoint left them.
 */
import type { Database } from '../db/database.ts';
import { ANY_TYPE } from './event-statistics.ts';
import { CHUNK_ENTRIES } from './fold/experiment-log.ts';
import { OrdinalSet } from './ordinal-set.ts';
import type { DerivedState } from './state.ts';

export function loadCheckpoint(db: Database, state: DerivedState): void {
  const users = db.prepare<[], [string, number, string]>('SELECT project_id, ordinal, user_id FROM event_users ORDER BY project_id, ordinal').raw();
  const daySets = db
    .prepare<[], [string, string, string, number, string, number, Buffer]>(
      'SELECT project_id, paywall_id, variant_id, day, type, count, users FROM event_day_sets',
    )
    .raw();
  const segments = db
    .prepare<[], [string, string, string, string, string]>('SELECT project_id, paywall_id, audience, variants, currencies FROM event_experiment_segments')
    .raw();
  const chunks = db
    .prepare<[], [string, string, string, string, number, number, Buffer]>(
      'SELECT project_id, paywall_id, audience, log, chunk, entries, data FROM event_experiment_chunks ORDER BY project_id, paywall_id, audience, log, chunk',
    )
    .raw();
  for (const [projectId, ordinal, userId] of users.iterate()) state.users.restore(projectId, ordinal, userId);
  for (const [projectId, paywallId, variantId, day, type, count, set] of daySets.iterate()) {
    const group = state.group(projectId, paywallId, variantId, day);
    const members = OrdinalSet.deserialize(set);
    if (type === ANY_TYPE) {
      group.users = members;
    } else {
      group.counts.set(type, count);
      state.addType(projectId, type);
      if (members.size > 0) group.typeUsers.set(type, members);
    }
  }
  for (const [projectId, paywallId, audience, variants, currencies] of segments.iterate()) {
    const segment = state.experiments.segment(projectId, paywallId, audience);
    segment.variants.push(...(JSON.parse(variants) as string[]));
    segment.currencies.push(...(JSON.parse(currencies) as string[]));
    segment.namesDirty = false;
  }
  for (const [projectId, paywallId, audience, log, chunk, entries, data] of chunks.iterate()) {
    const segment = state.experiments.segment(projectId, paywallId, audience);
    const target = log === 'exposures' ? segment.exposures : segment.purchases;
    if (chunk * CHUNK_ENTRIES !== target.length) throw new Error(`the stored experiment log ${log} of ${projectId}/${paywallId} has a gap at chunk ${chunk}`);
    const from = target.length;
    target.appendChunk(entries, data);
    if (target === segment.purchases) for (let i = from; i < target.length; i++) segment.link(i);
  }
}
