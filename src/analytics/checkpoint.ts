/**
 * Where the derived state meets SQLite: the checkpoint written every few
 * seconds (one transaction: the dedup and time-index entries of the events
 * since the last one, the new users, the day sets that changed, and the
 * `seq` they all include), and the
 * start-up that loads the last checkpoint and replays the raw events after
 * it. Without a checkpoint row every derived table is emptied and rebuilt
 * from the raw events, so deleting derived state loses nothing.
 */
import { type Database, sortInMemory } from '../db/database.ts';
import { loadCheckpoint } from './checkpoint-load.ts';
import { derivedEvent, SEQ_COLUMN } from './derived-event.ts';
import { EVENT_PAGE, StoredEventPages } from './event-pages.ts';
import { ANY_TYPE } from './event-statistics.ts';
import { CHUNK_ENTRIES } from './fold/experiment-log.ts';
import { ID_HASH_SQL, idHash } from './id-hash.ts';
import { OrdinalSet } from './ordinal-set.ts';
import { PendingIndexes } from './pending.ts';
import { ProjectNumbers } from './project-numbers.ts';
import { DerivedState } from './state.ts';
import { StoredKeys } from './stored-keys.ts';

/** While replaying, a checkpoint is written whenever this many events are pending, to bound memory. */
export const CHECKPOINT_MAX_PENDING = 200_000;
/** Users per statement when the checkpoint stores new users (larger pages were slower). */
const USER_PAGE = 4096;
/** Events per transaction when a rebuild fills the dedup and time indexes. */
const REBUILD_RANGE = 500_000;
/** Every derived table, emptied by a rebuild (and left behind by migrate-to, which rebuilds them). */
export const DERIVED_TABLES = [
  'event_checkpoint',
  'event_projects',
  'event_dedup',
  'event_time_index',
  'event_users',
  'event_day_sets',
  'event_experiment_segments',
  'event_experiment_chunks',
] as const;

interface StartUp {
  /** The seq of the checkpoint found (0: none, everything replayed). */
  checkpointSeq: number;
  /** Raw events replayed after it. */
  replayed: number;
}

export class DerivedStore {
  readonly state = new DerivedState();
  readonly pending = new PendingIndexes();
  readonly projects: ProjectNumbers;
  readonly storedKeys: StoredKeys;
  /** The seq the stored derived tables are complete up to. */
  checkpointedSeq = 0;
  private readonly db: Database;
  private readonly events: StoredEventPages;
  private readonly statements;

  constructor(db: Database) {
    this.db = db;
    this.projects = new ProjectNumbers(db);
    this.storedKeys = new StoredKeys(db);
    // The checkpoint's INSERT … SELECT hashes the ids in SQLite's loop and sorts in memory: no row comes back to JavaScript.
    db.function(ID_HASH_SQL, { deterministic: true }, idHash);
    sortInMemory(db);
    this.events = new StoredEventPages(db);
    this.statements = {
      checkpoint: db.prepare<[], number>('SELECT seq FROM event_checkpoint WHERE id = 1').pluck(),
      setCheckpoint: db.prepare<[number, number]>(
        'INSERT INTO event_checkpoint (id, seq, at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, at = excluded.at',
      ),
      maxSeq: db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck(),
      // The entries of the events in a seq range, sorted by SQLite: each index is walked once from left to right.
      // Nothing else writes these seqs' entries, so no OR IGNORE is needed.
      dedupRange: db.prepare<[number, number]>(
        `INSERT INTO event_dedup (project_no, client_ts, id_hash, seq)
         SELECT p.project_no, e.client_ts, ${ID_HASH_SQL}(e.event_id), e.seq FROM events e JOIN event_projects p ON p.project_id = e.project_id
         WHERE e.seq > ? AND e.seq <= ? AND e.event_id IS NOT NULL ORDER BY 1, 2, 3, 4`,
      ),
      timeRange: db.prepare<[number, number]>(
        `INSERT INTO event_time_index (project_no, ts, seq)
         SELECT p.project_no, e.ts, e.seq FROM events e JOIN event_projects p ON p.project_id = e.project_id
         WHERE e.seq > ? AND e.seq <= ? ORDER BY 1, 2, 3`,
      ),
      // A page of the dictionary per statement, its ids as one JSON array: one INSERT per user cost most of a rebuild's checkpoint.
      addUsers: db.prepare<[string, number, string]>('INSERT INTO event_users (project_id, ordinal, user_id) SELECT ?, ? + key, value FROM json_each(?)'),
      putSegment: db.prepare<[string, string, string, string, string]>(
        `INSERT INTO event_experiment_segments (project_id, paywall_id, audience, variants, currencies) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET variants = excluded.variants, currencies = excluded.currencies`,
      ),
      putChunk: db.prepare<[string, string, string, string, number, number, Buffer]>(
        `INSERT INTO event_experiment_chunks (project_id, paywall_id, audience, log, chunk, entries, data) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET entries = excluded.entries, data = excluded.data`,
      ),
      putDaySet: db.prepare<[string, string, string, number, string, number, Buffer]>(
        `INSERT INTO event_day_sets (project_id, paywall_id, variant_id, day, type, count, users) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET count = excluded.count, users = excluded.users`,
      ),
    };
  }

  /** Loads the last checkpoint (or rebuilds everything when there is none) and replays the events after it. */
  start(): StartUp {
    this.storedKeys.reset(this.statements.maxSeq.get() ?? 0);
    const seq = this.statements.checkpoint.get();
    let replayed = 0;
    if (seq === undefined) replayed = this.rebuild();
    else {
      this.projects.load();
      loadCheckpoint(this.db, this.state);
    }
    this.checkpointedSeq = this.pending.lastSeq = seq ?? this.pending.lastSeq;
    for (;;) {
      const rows = this.events.after(this.pending.lastSeq);
      for (const row of rows) {
        const event = derivedEvent(row);
        this.state.apply(event);
        const projectNo = this.projects.of(event.projectId);
        if (event.eventId !== null) this.pending.keys.add(projectNo, event.clientTs, idHash(event.eventId), event.eventId);
        this.pending.add(row[SEQ_COLUMN]);
      }
      replayed += rows.length;
      if (this.pending.size >= CHECKPOINT_MAX_PENDING) this.checkpoint();
      if (rows.length < EVENT_PAGE) break;
    }
    if (this.pending.size > 0) this.checkpoint();
    return { checkpointSeq: seq ?? 0, replayed };
  }

  /**
   * The derived state from every raw event, when no checkpoint exists: the
   * counts, the sets and the dedup key filter by one pass over the events
   * in seq order (ordinals are handed out in that order; event_dedup will
   * hold exactly the keys of this pass, so the filter needs no second read
   * of them); the dedup and time indexes by SQLite itself, one seq range at
   * a time (INSERT … SELECT … ORDER BY sorts the range in C; events arrive
   * roughly in time order, so each range lands near the right-hand edge of
   * the indexes), each range its own transaction to keep the WAL small.
   * Projects are numbered in the order their first event was stored. The
   * checkpoint row comes last: a crash before it makes the next start
   * rebuild again from scratch.
   */
  private rebuild(): number {
    const last = this.statements.maxSeq.get() ?? 0;
    let keys = 0;
    let replayed = 0;
    for (let rows = this.events.after(0, last); rows.length > 0; rows = this.events.after(rows.at(-1)![SEQ_COLUMN], last)) {
      for (const row of rows) {
        const event = derivedEvent(row);
        this.state.apply(event);
        const projectNo = this.projects.of(event.projectId);
        if (event.eventId !== null) {
          this.storedKeys.addUncounted(projectNo, event.clientTs, idHash(event.eventId));
          keys++;
        }
      }
      replayed += rows.length;
    }
    const emptyTables = this.db.transaction(() => {
      for (const table of DERIVED_TABLES) this.db.exec(`DELETE FROM ${table}`);
    });
    emptyTables.immediate();
    const { dedupRange, timeRange } = this.statements;
    const indexRange = this.db.transaction((from: number, to: number) => {
      this.projects.write();
      dedupRange.run(from, to);
      timeRange.run(from, to);
    });
    for (let from = 0; from < last; from += REBUILD_RANGE) indexRange.immediate(from, Math.min(last, from + REBUILD_RANGE));
    this.checkpointedSeq = this.pending.lastSeq = last;
    this.checkpoint();
    this.storedKeys.counted(keys);
    this.storedKeys.markComplete();
    return replayed;
  }

  /**
   * Writes what changed since the last checkpoint in one transaction. On
   * failure nothing is lost: the memory keeps it and the next attempt
   * writes it; a crash meanwhile is covered by the replay.
   */
  checkpoint(): void {
    const { pending, state } = this;
    const users = state.users.takeFresh();
    const dirty = [...state.entries()].filter(([, , , , group]) => group.dirty !== undefined);
    const segments = [...state.experiments.entries()].filter(
      ([, , , segment]) =>
        segment.namesDirty || segment.exposures.length > segment.exposures.storedLength || segment.purchases.length > segment.purchases.storedLength,
    );
    const s = this.statements;
    let projects: ReturnType<ProjectNumbers['write']> = [];
    try {
      this.db
        .transaction(() => {
          projects = this.projects.write();
          if (pending.lastSeq > this.checkpointedSeq) {
            s.dedupRange.run(this.checkpointedSeq, pending.lastSeq);
            s.timeRange.run(this.checkpointedSeq, pending.lastSeq);
          }
          for (const { projectId, from, to } of users) {
            for (let first = from; first < to; first += USER_PAGE) {
              s.addUsers.run(projectId, first, JSON.stringify(state.users.ids(projectId, first, Math.min(to, first + USER_PAGE))));
            }
          }
          const empty = new OrdinalSet().serialize();
          for (const [projectId, paywallId, variantId, day, group] of dirty) {
            let total = 0;
            for (const count of group.counts.values()) total += count;
            for (const type of group.dirty!) {
              s.putDaySet.run(projectId, paywallId, variantId, day, type, group.counts.get(type)!, group.typeUsers.get(type)?.serialize() ?? empty);
            }
            s.putDaySet.run(projectId, paywallId, variantId, day, ANY_TYPE, total, group.users.serialize());
          }
          for (const [projectId, paywallId, audience, segment] of segments) {
            s.putSegment.run(projectId, paywallId, audience, JSON.stringify(segment.variants), JSON.stringify(segment.currencies));
            for (const [name, log] of [
              ['exposures', segment.exposures],
              ['purchases', segment.purchases],
            ] as const) {
              // Only the chunks holding entries added since the last checkpoint: the last stored one may have grown.
              for (let n = Math.floor(log.storedLength / CHUNK_ENTRIES); n * CHUNK_ENTRIES < log.length; n++) {
                const { entries, data } = log.chunk(n);
                s.putChunk.run(projectId, paywallId, audience, name, n, entries, data);
              }
            }
          }
          s.setCheckpoint.run(pending.lastSeq, Date.now());
        })
        .immediate();
    } catch (error) {
      state.users.giveBack(users);
      this.projects.giveBack(projects);
      throw error;
    }
    for (const [, , , , group] of dirty) group.dirty = undefined;
    for (const [, , , segment] of segments) {
      segment.namesDirty = false;
      segment.exposures.storedLength = segment.exposures.length;
      segment.purchases.storedLength = segment.purchases.length;
    }
    // The keys now in event_dedup go into the filter before they leave memory.
    const { projectNos, clientTimes, hashes } = pending.keys;
    this.storedKeys.addAll(projectNos, clientTimes, hashes);
    this.checkpointedSeq = pending.lastSeq;
    pending.clear();
  }
}
