/**
 * Event rows as the server stores them (src/events/writer/protocol.ts, EventRow)
 * and the candidate designs for storing them, for the two places where the
 * bench writes events without the server: the better-sqlite3 baselines and
 * the loader of the stats scenario.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** better-sqlite3's JavaScript from node_modules, with the addon dist/ carries (the one the server loads). */
export function openSqlite(file, addon) {
  const Database = require('better-sqlite3');
  return new Database(file, { nativeBinding: addon });
}

/** The funnel of bench/wrk/events.lua: mostly impressions, some closes, a few purchases. */
const TYPES = [
  'screen_impression',
  'screen_impression',
  'screen_impression',
  'screen_impression',
  'screen_impression',
  'screen_impression',
  'paywall_close',
  'paywall_close',
  'purchase_start',
  'purchase_complete',
];
/** The variants of bench/lib/fixture.mjs; the server derives one per user, the bench alternates. */
const VARIANTS = ['control', 'annual_first'];

/** The n-th event of a stream, shaped like the ones bench/wrk/events.lua sends. */
export function eventRow({ projectId, paywallId, users, idPrefix }, n, ts, receivedAt) {
  const type = TYPES[n % TYPES.length];
  const user = (n * 7919) % users;
  return [
    projectId,
    paywallId,
    type,
    ts,
    ts,
    null,
    receivedAt,
    `${idPrefix}${n}`,
    `user-${user}`,
    VARIANTS[user % VARIANTS.length],
    type.startsWith('purchase') ? 'pro_annual' : null,
    `{"screen":"onboarding","step":${n % 7},"price":9.99}`,
  ];
}

/** Events per request in the events scenarios, and per batch in the baseline's transactions. */
export const BATCH = 100;

/** As bench/wrk/events.lua times a batch: events SPACING_MS apart, oldest first, the newest at `now`. */
const SPACING_MS = 300;
export function batchTime(now, index, batchSize) {
  return now - (batchSize - 1 - index) * SPACING_MS;
}

const INSERT_EVENT = `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, sent_at, received_at, event_id, user_id, variant_id, product_id, properties)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The secondary indexes the events table had before migration 5, for the designs that keep them inline. */
const INLINE_INDEXES = {
  'inline-time': [
    'CREATE UNIQUE INDEX IF NOT EXISTS events_dedup ON events (project_id, client_ts, event_id) WHERE event_id IS NOT NULL',
    'CREATE INDEX IF NOT EXISTS events_by_time ON events (project_id, ts)',
  ],
  'inline-dedup': ['CREATE UNIQUE INDEX IF NOT EXISTS events_dedup ON events (project_id, client_ts, event_id) WHERE event_id IS NOT NULL'],
  'inline-id': ['CREATE UNIQUE INDEX IF NOT EXISTS events_dedup_id ON events (project_id, event_id) WHERE event_id IS NOT NULL'],
};

/** How often the checkpointed designs write their index entries (src/events/writer/writer-thread.ts, CHECKPOINT_EVERY_MS). */
const CHECKPOINT_EVERY_MS = 5000;
/** Pending events that force a checkpoint (src/analytics/checkpoint.ts, CHECKPOINT_MAX_PENDING). */
const CHECKPOINT_MAX_PENDING = 200_000;

/**
 * A 52-bit hash of an event id: FNV-1a and a multiply-rotate over the UTF-16
 * code units, the first 32 bits of one and 20 of the other. A copy of
 * src/analytics/id-hash.ts (the baselines run without tsx).
 */
export function idHash(text) {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return (h1 >>> 0) * 0x100000 + (h2 >>> 12);
}

/**
 * The index tables of the checkpointed designs: text keys (migration 5) or
 * compact integer keys (migration 8: a number per project, a 52-bit hash of
 * the event id with the seq, checked exactly against the events row).
 */
const CHECKPOINT_TABLES = {
  text: [
    'CREATE TABLE IF NOT EXISTS bench_dedup (project_id TEXT NOT NULL, client_ts INTEGER NOT NULL, event_id TEXT NOT NULL, PRIMARY KEY (project_id, client_ts, event_id)) STRICT, WITHOUT ROWID',
    'CREATE TABLE IF NOT EXISTS bench_time (project_id TEXT NOT NULL, ts INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (project_id, ts, seq)) STRICT, WITHOUT ROWID',
  ],
  compact: [
    'CREATE TABLE IF NOT EXISTS bench_projects (project_no INTEGER PRIMARY KEY, project_id TEXT NOT NULL UNIQUE) STRICT',
    'CREATE TABLE IF NOT EXISTS bench_dedup (project_no INTEGER NOT NULL, client_ts INTEGER NOT NULL, id_hash INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (project_no, client_ts, id_hash, seq)) STRICT, WITHOUT ROWID',
    'CREATE TABLE IF NOT EXISTS bench_time (project_no INTEGER NOT NULL, ts INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (project_no, ts, seq)) STRICT, WITHOUT ROWID',
  ],
};

/**
 * The dedup keys stored since the last checkpoint, in memory, as one string
 * per key in a Set (the server before migration 8), and a Set of the
 * checkpointed ones standing in for the server's key filter.
 */
function stringKeys() {
  let pending = new Set();
  const stored = new Set();
  return {
    key: (projectId, _no, clientTs, _hash, eventId) => `${projectId}\0${clientTs}\0${eventId}`,
    pending: (key) => pending.has(key),
    mayBeStored: (key) => stored.has(key),
    add: (key) => pending.add(key),
    size: () => pending.size,
    checkpointed() {
      for (const key of pending) stored.add(key);
      pending = new Set();
    },
  };
}

/**
 * The same as numbers (src/analytics/pending.ts, PendingKeys): keys in
 * arrays indexed by a Map of id hashes, and a Set of the checkpointed hashes
 * standing in for the key filter. A key is its index in the arrays.
 */
function numberKeys() {
  let newest = new Map();
  let previous = [];
  let nos = [];
  let times = [];
  let ids = [];
  let hashes = [];
  const stored = new Set();
  let candidate = -1;
  return {
    key(_projectId, no, clientTs, hash, eventId) {
      candidate = -1;
      for (let i = newest.get(hash) ?? -1; i >= 0; i = previous[i]) if (times[i] === clientTs && nos[i] === no && ids[i] === eventId) candidate = i;
      return [no, clientTs, hash, eventId];
    },
    pending: () => candidate >= 0,
    mayBeStored: (key) => stored.has(key[2]),
    add([no, clientTs, hash, eventId]) {
      previous.push(newest.get(hash) ?? -1);
      newest.set(hash, ids.length);
      nos.push(no);
      times.push(clientTs);
      hashes.push(hash);
      ids.push(eventId);
    },
    size: () => ids.length,
    checkpointed() {
      for (const hash of hashes) stored.add(hash);
      newest = new Map();
      previous = [];
      nos = [];
      times = [];
      ids = [];
      hashes = [];
    },
  };
}

/**
 * The checkpointed designs: per event a duplicate check (memory, then the
 * dedup table only when the key filter says the key may be there; here a
 * Set of the checkpointed keys plays the filter) and the append; every few
 * seconds the new dedup and time-index entries in one transaction.
 * - keys: 'text' (project_id, client_ts, event_id) / (project_id, ts, seq),
 *   or 'compact' (project_no, client_ts, id_hash, seq) / (project_no, ts, seq);
 * - fill: 'js' (entries collected per event, sorted in JavaScript, one
 *   INSERT each) or 'sql' (one INSERT … SELECT … FROM events WHERE seq
 *   BETWEEN … ORDER BY per table: SQLite reads back and sorts the range);
 * - memoryKeys: the keys since the last checkpoint as 'strings' in a Set or
 *   as 'numbers' (the default with compact keys);
 * - everyMs: the checkpoint interval;
 * - sortOnDisk: the 'sql' fill's sorter spills to temporary files (SQLite's default), not memory;
 * - cacheMb: SQLite's page cache (default 2 MB: a checkpoint of 200,000
 *   entries dirties more than that, and spilled pages are written twice).
 */
function checkpointedStore(
  db,
  insert,
  { keys: keyColumns, fill, everyMs, cacheMb, sortOnDisk, memoryKeys = keyColumns === 'compact' ? 'numbers' : 'strings' },
) {
  for (const sql of CHECKPOINT_TABLES[keyColumns]) db.exec(sql);
  // SQLite's sorter of the 'sql' fill spills to temporary files past a few MB otherwise (as the server's writer, src/db/database.ts).
  if (fill === 'sql' && !sortOnDisk) db.pragma('temp_store = MEMORY');
  if (cacheMb !== undefined) db.pragma(`cache_size = -${cacheMb * 1024}`);
  const compact = keyColumns === 'compact';
  let projectNo;
  if (compact) {
    db.function('id_hash', { deterministic: true }, idHash);
    const projects = new Map(db.prepare('SELECT project_id, project_no FROM bench_projects').raw().all());
    const addProject = db.prepare('INSERT INTO bench_projects (project_id) VALUES (?)');
    projectNo = (projectId) => {
      let no = projects.get(projectId);
      if (no === undefined) projects.set(projectId, (no = Number(addProject.run(projectId).lastInsertRowid)));
      return no;
    };
  }
  const lookup = compact
    ? db
        .prepare('SELECT 1 FROM bench_dedup d JOIN events e ON e.seq = d.seq WHERE d.project_no = ? AND d.client_ts = ? AND d.id_hash = ? AND e.event_id = ?')
        .pluck()
    : db.prepare('SELECT 1 FROM bench_dedup WHERE project_id = ? AND client_ts = ? AND event_id = ?').pluck();
  const addDedup = compact
    ? db.prepare('INSERT INTO bench_dedup (project_no, client_ts, id_hash, seq) VALUES (?, ?, ?, ?)')
    : db.prepare('INSERT OR IGNORE INTO bench_dedup (project_id, client_ts, event_id) VALUES (?, ?, ?)');
  const addTime = db.prepare(`INSERT ${compact ? '' : 'OR IGNORE '}INTO bench_time VALUES (?, ?, ?)`);
  const dedupRange = compact
    ? db.prepare(
        `INSERT INTO bench_dedup SELECT p.project_no, e.client_ts, id_hash(e.event_id), e.seq FROM events e JOIN bench_projects p ON p.project_id = e.project_id
         WHERE e.seq BETWEEN ? AND ? AND e.event_id IS NOT NULL ORDER BY 1, 2, 3, 4`,
      )
    : db.prepare(
        'INSERT OR IGNORE INTO bench_dedup SELECT project_id, client_ts, event_id FROM events WHERE seq BETWEEN ? AND ? AND event_id IS NOT NULL ORDER BY 1, 2, 3',
      );
  const timeRange = compact
    ? db.prepare(
        'INSERT INTO bench_time SELECT p.project_no, e.ts, e.seq FROM events e JOIN bench_projects p ON p.project_id = e.project_id WHERE e.seq BETWEEN ? AND ? ORDER BY 1, 2, 3',
      )
    : db.prepare('INSERT OR IGNORE INTO bench_time SELECT project_id, ts, seq FROM events WHERE seq BETWEEN ? AND ? ORDER BY 1, 2, 3');
  const keys = memoryKeys === 'numbers' ? numberKeys() : stringKeys();
  let dedup = [];
  let time = [];
  let firstSeq = 0;
  let lastSeq = 0;
  let lastCheckpoint = performance.now();
  const write = db.transaction((rows) => {
    let fresh = 0;
    for (const row of rows) {
      const no = compact ? projectNo(row[0]) : 0;
      const hash = compact || memoryKeys === 'numbers' ? idHash(row[7]) : 0;
      const key = keys.key(row[0], no, row[4], hash, row[7]);
      if (keys.pending(key)) continue;
      if (keys.mayBeStored(key)) {
        const stored = compact ? lookup.get(no, row[4], hash, row[7]) : lookup.get(row[0], row[4], row[7]);
        if (stored !== undefined) continue;
      }
      const seq = Number(insert.run(row).lastInsertRowid);
      keys.add(key);
      if (firstSeq === 0) firstSeq = seq;
      lastSeq = seq;
      if (fill === 'js') {
        if (compact) {
          dedup.push([no, row[4], hash, seq]);
          time.push([no, row[3], seq]);
        } else {
          dedup.push([row[0], row[4], row[7]]);
          time.push([row[0], row[3], seq]);
        }
      }
      fresh++;
    }
    return fresh;
  });
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const checkpoint = db.transaction(() => {
    if (fill === 'sql') {
      if (firstSeq === 0) return;
      dedupRange.run(firstSeq, lastSeq);
      timeRange.run(firstSeq, lastSeq);
      return;
    }
    if (compact) {
      dedup.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
      time.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    } else {
      dedup.sort((a, b) => cmp(a[0], b[0]) || a[1] - b[1] || cmp(a[2], b[2]));
      time.sort((a, b) => cmp(a[0], b[0]) || a[1] - b[1] || a[2] - b[2]);
    }
    for (const entry of dedup) addDedup.run(entry);
    for (const entry of time) addTime.run(entry);
  });
  const flush = () => {
    checkpoint.immediate();
    keys.checkpointed();
    dedup = [];
    time = [];
    firstSeq = 0;
    lastCheckpoint = performance.now();
  };
  return {
    write(rows) {
      const fresh = write.immediate(rows);
      if (performance.now() - lastCheckpoint >= everyMs || keys.size() >= CHECKPOINT_MAX_PENDING) flush();
      return fresh;
    },
    flush,
  };
}

/** The checkpointed designs by name (see checkpointedStore): `checkpointed` is the server's since migration 8, `text-js` its design before. */
export const CHECKPOINTED_DESIGNS = {
  checkpointed: { keys: 'compact', fill: 'sql', everyMs: CHECKPOINT_EVERY_MS },
  'text-js': { keys: 'text', fill: 'js', everyMs: CHECKPOINT_EVERY_MS },
  'text-sql': { keys: 'text', fill: 'sql', everyMs: CHECKPOINT_EVERY_MS },
  'compact-js': { keys: 'compact', fill: 'js', everyMs: CHECKPOINT_EVERY_MS },
  'compact-sql-20s': { keys: 'compact', fill: 'sql', everyMs: 4 * CHECKPOINT_EVERY_MS },
  'compact-sql-strings': { keys: 'compact', fill: 'sql', everyMs: CHECKPOINT_EVERY_MS, memoryKeys: 'strings' },
  'compact-sql-tempfile': { keys: 'compact', fill: 'sql', everyMs: CHECKPOINT_EVERY_MS, sortOnDisk: true },
  'compact-sql-cache32': { keys: 'compact', fill: 'sql', everyMs: CHECKPOINT_EVERY_MS, cacheMb: 32 },
};

/**
 * The candidate designs for storing events with exact deduplication, each a
 * function committing one list of rows in one transaction (BEGIN IMMEDIATE,
 * as the server's writer) and answering how many were new:
 * - `noindex`: the append alone, no dedup: the ceiling;
 * - `inline-time`: the design before migration 5: a unique index on
 *   (project_id, client_ts, event_id) and an index on (project_id, ts) in the
 *   events table, written per event;
 * - `inline-dedup`: the unique (project_id, client_ts, event_id) index alone;
 * - `inline-id`: a unique index on (project_id, event_id): no time in the key;
 * - the checkpointed designs of CHECKPOINTED_DESIGNS.
 */
export function eventStore(db, design) {
  for (const sql of INLINE_INDEXES[design] ?? []) db.exec(sql);
  const insert = db.prepare(design.startsWith('inline') ? `${INSERT_EVENT} ON CONFLICT DO NOTHING` : INSERT_EVENT);
  if (Object.hasOwn(CHECKPOINTED_DESIGNS, design)) return checkpointedStore(db, insert, CHECKPOINTED_DESIGNS[design]);
  const write = db.transaction((rows) => {
    let fresh = 0;
    for (const row of rows) fresh += insert.run(row).changes;
    return fresh;
  });
  return { write: (rows) => write.immediate(rows), flush() {} };
}
