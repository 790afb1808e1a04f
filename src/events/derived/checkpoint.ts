/**
 * Where the derived state meets SQLite: the checkpoint written every few
 * seconds (one transaction: the dedup and time-index entries of the events
 * since the last one, the new users, the day sets that changed, and the
 * `seq` they all include), and the
 * start-up that loads the last checkpoint and replays the raw events after
 * it. Without a checkpoint row every derived table is emptied and rebuilt
 * from the raw events, so deleting derived state loses nothing.
 */
import { type Database, sortInMemory } from '../../db/database.ts';
import { CHUNK_ENTRIES } from './experiment-log.ts';
import { ID_HASH_SQL, idHash } from './id-hash.ts';
import { KeyFilter } from './key-filter.ts';
import { OrdinalSet } from './ordinal-set.ts';
import { PendingIndexes } from './pending.ts';
import { ANY_TYPE, DerivedState } from './state.ts';

/** Events read per query while replaying: a statement being iterated would keep the connection busy. */
const REPLAY_PAGE = 50_000;
/** While replaying, a checkpoint is written whenever this many events are pending, to bound memory. */
export const CHECKPOINT_MAX_PENDING = 200_000;
/** Events per transaction when a rebuild fills the dedup and time indexes. */
const REBUILD_RANGE = 500_000;
/**
 * Keys read from event_dedup per step of filling the key filter at start: a
 * few milliseconds, so that statistics and commits asked meanwhile wait no
 * longer than that.
 */
const FILTER_PAGE = 2000;

type ReplayRow = [
  seq: number,
  projectId: string,
  paywallId: string,
  type: string,
  ts: number,
  clientTs: number,
  eventId: string | null,
  userId: string | null,
  variantId: string | null,
  audience: string | null,
  revenue: number | null,
  currency: string | null,
];

export interface StartUp {
  /** The seq of the checkpoint found (0: none, everything replayed). */
  checkpointSeq: number;
  /** Raw events replayed after it. */
  replayed: number;
}

export class DerivedStore {
  readonly state = new DerivedState();
  readonly pending = new PendingIndexes();
  /** The seq the stored derived tables are complete up to. */
  checkpointedSeq = 0;
  /**
   * Every dedup key stored since the start is in one of them; those stored
   * before, once `filterComplete`. Keys go into the last one; when it holds
   * more than planned, a four times larger one is started (the full ones
   * stay as they are, at about 2 % false positives each): no rescan.
   */
  private filters = [new KeyFilter(0)];
  private filterComplete = false;
  /** Keys added to the last filter. */
  private filterKeys = 0;
  /** Keys in all filters. */
  private filterTotal = 0;
  /** Where filling the filter from event_dedup goes on: the last key read (project_no, client_ts, id_hash, seq). */
  private filterCursor: [number, number, number, number] = [0, Number.MIN_SAFE_INTEGER, -1, 0];
  /** The number of each project in the index tables (event_projects): a small integer keys them instead of the id's text. */
  private readonly projects = new Map<string, number>();
  /** Numbered since the last checkpoint, not yet in event_projects. */
  private freshProjects: [projectNo: number, projectId: string][] = [];
  private readonly db: Database;
  private readonly statements;

  constructor(db: Database) {
    this.db = db;
    // The checkpoint's INSERT … SELECT hashes the ids in SQLite's loop and sorts in memory: no row comes back to JavaScript.
    db.function(ID_HASH_SQL, { deterministic: true }, idHash);
    sortInMemory(db);
    this.statements = {
      checkpoint: db.prepare<[], number>('SELECT seq FROM event_checkpoint WHERE id = 1').pluck(),
      setCheckpoint: db.prepare<[number, number]>(
        'INSERT INTO event_checkpoint (id, seq, at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, at = excluded.at',
      ),
      users: db.prepare<[], [string, number, string]>('SELECT project_id, ordinal, user_id FROM event_users ORDER BY project_id, ordinal').raw(),
      daySets: db
        .prepare<[], [string, string, string, number, string, number, Buffer]>(
          'SELECT project_id, paywall_id, variant_id, day, type, count, users FROM event_day_sets',
        )
        .raw(),
      replay: db
        .prepare<[number, number], ReplayRow>(
          'SELECT seq, project_id, paywall_id, type, ts, client_ts, event_id, user_id, variant_id, audience, revenue, currency FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
        )
        .raw(),
      maxSeq: db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck(),
      storedKeys: db
        .prepare<[number, number, number, number, number], [number, number, number, number]>(
          `SELECT project_no, client_ts, id_hash, seq FROM event_dedup WHERE (project_no, client_ts, id_hash, seq) > (?, ?, ?, ?)
           ORDER BY project_no, client_ts, id_hash, seq LIMIT ?`,
        )
        .raw(),
      projects: db.prepare<[], [string, number]>('SELECT project_id, project_no FROM event_projects').raw(),
      addProject: db.prepare<[number, string]>('INSERT INTO event_projects (project_no, project_id) VALUES (?, ?)'),
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
      addUser: db.prepare<[string, number, string]>('INSERT INTO event_users (project_id, ordinal, user_id) VALUES (?, ?, ?)'),
      segments: db
        .prepare<[], [string, string, string, string, string]>('SELECT project_id, paywall_id, audience, variants, currencies FROM event_experiment_segments')
        .raw(),
      chunks: db
        .prepare<[], [string, string, string, string, number, number, Buffer]>(
          'SELECT project_id, paywall_id, audience, log, chunk, entries, data FROM event_experiment_chunks ORDER BY project_id, paywall_id, audience, log, chunk',
        )
        .raw(),
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
    this.newFilter(this.statements.maxSeq.get() ?? 0);
    const seq = this.statements.checkpoint.get();
    let replayed = 0;
    if (seq === undefined) replayed = this.rebuild();
    else this.load(seq);
    this.checkpointedSeq = this.pending.lastSeq = seq ?? this.pending.lastSeq;
    for (;;) {
      const rows = this.statements.replay.all(this.pending.lastSeq, REPLAY_PAGE);
      for (const [rowSeq, projectId, paywallId, type, ts, clientTs, eventId, userId, variantId, audience, revenue, currency] of rows) {
        this.state.apply({ projectId, paywallId, type, ts, userId, variantId, audience, revenue, currency });
        const projectNo = this.projectNo(projectId);
        if (eventId !== null) this.pending.keys.add(projectNo, clientTs, idHash(eventId), eventId);
        this.pending.add(rowSeq);
      }
      replayed += rows.length;
      if (this.pending.size >= CHECKPOINT_MAX_PENDING) this.checkpoint();
      if (rows.length < REPLAY_PAGE) break;
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
    const events = this.db
      .prepare<[number], [string, string, string, number, number, string | null, string | null, string | null, string | null, number | null, string | null]>(
        'SELECT project_id, paywall_id, type, ts, client_ts, event_id, user_id, variant_id, audience, revenue, currency FROM events WHERE seq <= ? ORDER BY seq',
      )
      .raw();
    const filter = this.filters.at(-1)!;
    let keys = 0;
    let replayed = 0;
    for (const [projectId, paywallId, type, ts, clientTs, eventId, userId, variantId, audience, revenue, currency] of events.iterate(last)) {
      this.state.apply({ projectId, paywallId, type, ts, userId, variantId, audience, revenue, currency });
      const projectNo = this.projectNo(projectId);
      if (eventId !== null) {
        filter.add(projectNo, clientTs, idHash(eventId));
        keys++;
      }
      replayed++;
    }
    const emptyTables = this.db.transaction(() => {
      for (const table of [
        'event_checkpoint',
        'event_projects',
        'event_dedup',
        'event_time_index',
        'event_users',
        'event_day_sets',
        'event_experiment_segments',
        'event_experiment_chunks',
      ])
        this.db.exec(`DELETE FROM ${table}`);
    });
    emptyTables.immediate();
    const { dedupRange, timeRange } = this.statements;
    const indexRange = this.db.transaction((from: number, to: number) => {
      this.writeFreshProjects();
      dedupRange.run(from, to);
      timeRange.run(from, to);
    });
    for (let from = 0; from < last; from += REBUILD_RANGE) indexRange.immediate(from, Math.min(last, from + REBUILD_RANGE));
    this.checkpointedSeq = this.pending.lastSeq = last;
    this.checkpoint();
    this.counted(keys);
    this.filterComplete = true;
    return replayed;
  }

  /**
   * The filter at start, for four times `stored` keys (room to grow), to be
   * filled from event_dedup by `fillFilter`; until then every key is read.
   */
  private newFilter(stored: number): void {
    this.filters = [new KeyFilter(Math.max(1_000_000, 4 * stored))];
    this.filterKeys = 0;
    this.filterTotal = 0;
    this.filterComplete = false;
    this.filterCursor = [0, Number.MIN_SAFE_INTEGER, -1, 0];
  }

  /** The project's number in the index tables, handed out on first use (written to event_projects by the next checkpoint). */
  projectNo(projectId: string): number {
    let no = this.projects.get(projectId);
    if (no === undefined) {
      no = this.projects.size + 1;
      this.projects.set(projectId, no);
      this.freshProjects.push([no, projectId]);
    }
    return no;
  }

  /** Inside a transaction: the projects numbered since the last one go into event_projects first, so the index fill can join them. */
  private writeFreshProjects(): void {
    for (const [no, projectId] of this.freshProjects) this.statements.addProject.run(no, projectId);
    this.freshProjects = [];
  }

  /** Counts keys added to the last filter; past its capacity the next ones go to a new, larger one. */
  private counted(keys: number): void {
    this.filterKeys += keys;
    this.filterTotal += keys;
    const last = this.filters.at(-1)!;
    if (this.filterKeys > last.capacity) {
      this.filters.push(new KeyFilter(4 * last.capacity));
      this.filterKeys = 0;
    }
  }

  /** The filter is being filled: the writer calls fillFilter between commits until it answers true. */
  get filling(): boolean {
    return !this.filterComplete;
  }

  /** Keys in the filters. */
  get filterSize(): number {
    return this.filterTotal;
  }

  /** Whether a stored event may have this dedup key: false means certainly not, with no read. */
  mayBeStored(projectNo: number, clientTs: number, idHash: number): boolean {
    if (!this.filterComplete) return true;
    for (const filter of this.filters) if (filter.mightContain(projectNo, clientTs, idHash)) return true;
    return false;
  }

  /**
   * Adds the next page of keys stored before this start to the filter; true
   * once all are in (from then on `mayBeStored` answers from memory). Runs
   * in steps between commits, so ingestion does not wait for it.
   */
  fillFilter(): boolean {
    if (this.filterComplete) return true;
    let read = 0;
    let last: [number, number, number, number] | undefined;
    // Iterated to its end right here, so the connection is free again before anything else runs.
    const filter = this.filters.at(-1)!;
    for (const row of this.statements.storedKeys.iterate(...this.filterCursor, FILTER_PAGE)) {
      filter.add(row[0], row[1], row[2]);
      last = row;
      read++;
    }
    this.counted(read);
    if (last) this.filterCursor = last;
    this.filterComplete = read < FILTER_PAGE;
    return this.filterComplete;
  }

  private load(seq: number): void {
    for (const [projectId, no] of this.statements.projects.iterate()) this.projects.set(projectId, no);
    for (const [projectId, ordinal, userId] of this.statements.users.iterate()) this.state.users.restore(projectId, ordinal, userId);
    for (const [projectId, paywallId, variantId, day, type, count, users] of this.statements.daySets.iterate()) {
      const group = this.state.group(projectId, paywallId, variantId, day);
      const set = OrdinalSet.deserialize(users);
      if (type === ANY_TYPE) {
        group.users = set;
      } else {
        group.counts.set(type, count);
        this.state.addType(projectId, type);
        if (set.size > 0) group.typeUsers.set(type, set);
      }
    }
    for (const [projectId, paywallId, audience, variants, currencies] of this.statements.segments.iterate()) {
      const segment = this.state.experiments.segment(projectId, paywallId, audience);
      segment.variants.push(...(JSON.parse(variants) as string[]));
      segment.currencies.push(...(JSON.parse(currencies) as string[]));
      segment.namesDirty = false;
    }
    for (const [projectId, paywallId, audience, log, chunk, entries, data] of this.statements.chunks.iterate()) {
      const segment = this.state.experiments.segment(projectId, paywallId, audience);
      const target = log === 'exposures' ? segment.exposures : segment.purchases;
      if (chunk * CHUNK_ENTRIES !== target.length) throw new Error(`the stored experiment log ${log} of ${projectId}/${paywallId} has a gap at chunk ${chunk}`);
      const from = target.length;
      target.appendChunk(entries, data);
      if (target === segment.purchases) for (let i = from; i < target.length; i++) segment.link(i);
    }
    this.checkpointedSeq = seq;
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
    const projects = this.freshProjects;
    try {
      this.db
        .transaction(() => {
          this.writeFreshProjects();
          if (pending.lastSeq > this.checkpointedSeq) {
            s.dedupRange.run(this.checkpointedSeq, pending.lastSeq);
            s.timeRange.run(this.checkpointedSeq, pending.lastSeq);
          }
          for (const entry of users) s.addUser.run(...entry);
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
      this.freshProjects = [...projects, ...this.freshProjects];
      throw error;
    }
    for (const [, , , , group] of dirty) group.dirty = undefined;
    for (const [, , , segment] of segments) {
      segment.namesDirty = false;
      segment.exposures.storedLength = segment.exposures.length;
      segment.purchases.storedLength = segment.purchases.length;
    }
    // The keys now in event_dedup go into the filter before they leave memory.
    const filter = this.filters.at(-1)!;
    const { projectNos, clientTimes, hashes } = pending.keys;
    for (let i = 0; i < hashes.length; i++) filter.add(projectNos[i]!, clientTimes[i]!, hashes[i]!);
    this.counted(hashes.length);
    this.checkpointedSeq = pending.lastSeq;
    pending.clear();
  }
}
