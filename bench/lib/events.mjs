/**
 * Event rows as the server stores them (src/events/writer/protocol.ts, EventRow)
 * and a copy of the server's insert statements, for the two places where the
 * bench writes events without the server: the better-sqlite3 baseline and
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
  'screen_impression', 'screen_impression', 'screen_impression', 'screen_impression', 'screen_impression',
  'screen_impression', 'paywall_close', 'paywall_close', 'purchase_start', 'purchase_complete',
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

const DAY_MS = 24 * 60 * 60 * 1000;

/** Events per request in the events scenarios, and per batch in the baseline's transactions. */
export const BATCH = 100;

/** As bench/wrk/events.lua times a batch: events SPACING_MS apart, oldest first, the newest at `now`. */
const SPACING_MS = 300;
export function batchTime(now, index, batchSize) {
  return now - (batchSize - 1 - index) * SPACING_MS;
}

const INSERT_EVENT = `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, sent_at, received_at, event_id, user_id, variant_id, product_id, properties)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The server's insert of one event, a duplicate id skipped; without `dedup` a plain insert (for a table without the dedup index). */
function prepareInsertEvent(db, { dedup = true } = {}) {
  return db.prepare(dedup ? `${INSERT_EVENT} ON CONFLICT (project_id, client_ts, event_id) WHERE event_id IS NOT NULL DO NOTHING` : INSERT_EVENT);
}

/**
 * What src/events/writer/sink.ts does per transaction, statement for
 * statement: each event inserted (a duplicate id skipped), then the daily
 * roll-ups summed in memory and written once per key. Returns a function
 * that commits one list of rows in one transaction (BEGIN IMMEDIATE, as the
 * server's writer) and answers how many were new.
 */
export function sinkLikeTheServer(db) {
  const insertEvent = prepareInsertEvent(db);
  const addCount = db.prepare(
    `INSERT INTO event_daily_counts (project_id, paywall_id, day, variant_id, type, count) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET count = count + excluded.count`,
  );
  const addUser = db.prepare(
    'INSERT INTO event_daily_users (project_id, paywall_id, day, variant_id, user_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const write = db.transaction((rows) => {
    const counts = new Map();
    const users = new Map();
    let fresh = 0;
    for (const row of rows) {
      if (insertEvent.run(row).changes === 0) continue;
      fresh++;
      const [projectId, paywallId, type, ts] = row;
      const day = Math.floor(ts / DAY_MS);
      const variantId = row[9] ?? '';
      const group = `${projectId}\0${paywallId}\0${day}\0${variantId}`;
      const countKey = `${group}\0${type}`;
      const count = counts.get(countKey);
      if (count) count[5]++;
      else counts.set(countKey, [projectId, paywallId, day, variantId, type, 1]);
      const userId = row[8];
      if (userId !== null) {
        const userKey = `${group}\0${userId}`;
        if (!users.has(userKey)) users.set(userKey, [projectId, paywallId, day, variantId, userId]);
      }
    }
    for (const count of counts.values()) addCount.run(count);
    for (const user of users.values()) addUser.run(user);
    return fresh;
  });
  return (rows) => write.immediate(rows);
}

/**
 * The raw events table alone, without the roll-ups: what the schema's event
 * storage costs by itself, to tell how much of the events scenario the
 * roll-ups take (and, on a table without the secondary indexes, `dedup:
 * false`, what those take).
 */
export function rawEventsOnly(db, options) {
  const insertEvent = prepareInsertEvent(db, options);
  const write = db.transaction((rows) => {
    let fresh = 0;
    for (const row of rows) fresh += insertEvent.run(row).changes;
    return fresh;
  });
  return (rows) => write.immediate(rows);
}
