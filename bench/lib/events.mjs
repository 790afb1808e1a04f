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

/** How often the checkpointed design writes its index entries (src/events/writer/thread.ts, CHECKPOINT_EVERY_MS). */
const CHECKPOINT_EVERY_MS = 5000;

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
 * - `checkpointed`: the server's design (src/events/writer/sink.ts and
 *   src/events/derived/): per event a duplicate check (memory, then
 *   event_dedup only when the key filter says the key may be stored; here a
 *   Set of the checkpointed keys plays the filter) and the append; every few
 *   seconds the new dedup and time-index entries are inserted in key order
 *   in one transaction.
 */
export function eventStore(db, design) {
  for (const sql of INLINE_INDEXES[design] ?? []) db.exec(sql);
  const insert = db.prepare(design.startsWith('inline') ? `${INSERT_EVENT} ON CONFLICT DO NOTHING` : INSERT_EVENT);
  if (design !== 'checkpointed') {
    const write = db.transaction((rows) => {
      let fresh = 0;
      for (const row of rows) fresh += insert.run(row).changes;
      return fresh;
    });
    return { write: (rows) => write.immediate(rows), flush() {} };
  }
  const lookup = db.prepare('SELECT 1 FROM event_dedup WHERE project_id = ? AND client_ts = ? AND event_id = ?').pluck();
  const addDedup = db.prepare('INSERT OR IGNORE INTO event_dedup (project_id, client_ts, event_id) VALUES (?, ?, ?)');
  const addTime = db.prepare('INSERT OR IGNORE INTO event_time_index (project_id, ts, seq) VALUES (?, ?, ?)');
  let keys = new Set();
  const checkpointed = new Set();
  let dedup = [];
  let time = [];
  let lastCheckpoint = performance.now();
  const write = db.transaction((rows) => {
    let fresh = 0;
    for (const row of rows) {
      const key = `${row[0]}\0${row[4]}\0${row[7]}`;
      if (keys.has(key) || (checkpointed.has(key) && lookup.get(row[0], row[4], row[7]) !== undefined)) continue;
      const seq = Number(insert.run(row).lastInsertRowid);
      keys.add(key);
      dedup.push([row[0], row[4], row[7]]);
      time.push([row[0], row[3], seq]);
      fresh++;
    }
    return fresh;
  });
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const checkpoint = db.transaction(() => {
    dedup.sort((a, b) => cmp(a[0], b[0]) || a[1] - b[1] || cmp(a[2], b[2]));
    time.sort((a, b) => cmp(a[0], b[0]) || a[1] - b[1] || a[2] - b[2]);
    for (const entry of dedup) addDedup.run(entry);
    for (const entry of time) addTime.run(entry);
  });
  const flush = () => {
    checkpoint.immediate();
    for (const key of keys) checkpointed.add(key);
    keys = new Set();
    dedup = [];
    time = [];
    lastCheckpoint = performance.now();
  };
  return {
    write(rows) {
      const fresh = write.immediate(rows);
      if (performance.now() - lastCheckpoint >= CHECKPOINT_EVERY_MS || time.length >= 200_000) flush();
      return fresh;
    },
    flush,
  };
}
