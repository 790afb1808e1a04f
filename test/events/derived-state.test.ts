/**
 * The derived state (counts and user sets in the writer's memory,
 * checkpointed to SQLite, replayed from the raw events at start) through the
 * real server: statistics equal a brute-force count over the raw events for a
 * generated workload, survive a restart from the checkpoint, and are rebuilt
 * identically when every derived table is deleted.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { generateKey } from '../../src/keys/key.ts';
import { openTestSql } from '../helpers/database.ts';
import { exported, fetchStats, ingest, KNOWN_TYPES, openTestDb } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { bearer, restartServer, startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const DAY = 24 * 60 * 60 * 1000;
/** Mostly impressions; "constructor" checks that a type named like an Object property is counted like any other. */
const TYPES = [
  'screen_impression',
  'screen_impression',
  'screen_impression',
  'paywall_close',
  'purchase_start',
  'purchase_complete',
  'constructor',
  'custom_step',
];
const VARIANTS = ['control', 'annual_first', 'zeta', null];
const PAYWALLS = ['pw', 'other'];
const DAYS = 20;

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Events over DAYS days, in random time order, from many users (some without one), with and without ids. */
function workload(n: number, seed: number): Json[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const end = Date.now() - 60_000;
  return Array.from({ length: n }, (_, i) => {
    // Users past 2^16 too, so ordinals land in more than one chunk of the sets.
    const user = next() < 0.1 ? null : `user-${Math.floor(next() ** 2 * 70_000)}`;
    return {
      type: pick(TYPES),
      paywall_id: pick(PAYWALLS),
      ts: end - Math.floor(next() * DAYS * DAY),
      ...(next() < 0.9 ? { id: `e${seed}-${i}` } : {}),
      user_id: user,
      variant_id: pick(VARIANTS),
    };
  });
}

/** The statistics of a paywall over [fromDay, toDay] counted from raw events, in the response's shape. */
function bruteForce(events: Json[], paywallId: string, fromDay: string, toDay: string): Json[] {
  const variants = new Map<
    string,
    { counts: Map<string, number>; users: Set<string>; days: Map<string, { counts: Map<string, number>; users: Set<string> }> }
  >();
  for (const event of events) {
    const day = new Date(event.ts).toISOString().slice(0, 10);
    if (event.paywall_id !== paywallId || day < fromDay || day > toDay) continue;
    const id = event.variant_id ?? 'unknown';
    let variant = variants.get(id);
    if (!variant) variants.set(id, (variant = { counts: new Map(), users: new Set(), days: new Map() }));
    let daily = variant.days.get(day);
    if (!daily) variant.days.set(day, (daily = { counts: new Map(), users: new Set() }));
    for (const figures of [variant, daily]) {
      figures.counts.set(event.type, (figures.counts.get(event.type) ?? 0) + 1);
      if (event.user_id !== null) figures.users.add(event.user_id);
    }
  }
  const shape = (counts: Map<string, number>, users: Set<string>) => {
    const all = Object.fromEntries([...KNOWN_TYPES.map((type) => [type, 0] as const), ...counts]);
    return { counts: all, unique_users: users.size, conversion_rate: all.screen_impression === 0 ? null : all.purchase_complete! / all.screen_impression! };
  };
  return [...variants]
    .sort(([a], [b]) => (a === 'unknown' ? 1 : b === 'unknown' ? -1 : a < b ? -1 : 1))
    .map(([id, variant]) => ({
      variant_id: id,
      totals: shape(variant.counts, variant.users),
      days: [...variant.days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, daily]) => ({ day, ...shape(daily.counts, daily.users) })),
    }));
}

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Ranges to ask: everything, a middle stretch, one day. */
function ranges(): { from: string; to: string }[] {
  const today = Date.now();
  return [
    { from: dayText(today - (DAYS + 1) * DAY), to: dayText(today) },
    { from: dayText(today - 12 * DAY), to: dayText(today - 5 * DAY) },
    { from: dayText(today - 3 * DAY), to: dayText(today - 3 * DAY) },
  ];
}

/** Every answer the test compares: each paywall over each range. */
async function answers(url: string, secret: string): Promise<Json[]> {
  const all: Json[] = [];
  for (const paywallId of PAYWALLS) {
    for (const range of ranges()) {
      const response = await fetchStats(url, secret, paywallId, range);
      assert.equal(response.status, 200);
      all.push(await response.json());
    }
  }
  return all;
}

/** Sends the events in batches of 500, each batch a second time (a retry: all duplicates but the id-less ones). */
async function send(url: string, sdk: string, events: Json[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const batch = events.slice(i, i + 500);
    const first = await ingest(url, sdk, { events: batch });
    assert.equal(first.accepted, batch.length);
    const retry = await ingest(url, sdk, { events: batch });
    const withoutId = batch.filter((event) => event.id === undefined).length;
    assert.deepEqual([retry.accepted, retry.duplicates], [withoutId, batch.length - withoutId]);
  }
}

async function checkAgainstRawEvents(url: string, secret: string): Promise<Json[]> {
  const raw = await exported(url, secret);
  const got = await answers(url, secret);
  let i = 0;
  for (const paywallId of PAYWALLS) {
    for (const range of ranges()) {
      assert.deepEqual(got[i++]!.variants, bruteForce(raw, paywallId, range.from, range.to), `${paywallId} ${range.from}..${range.to}`);
    }
  }
  return got;
}

/** Deletes what a restart would load the statistics, dedup and export order from, leaving the raw events: SQLite's derived tables, PostgreSQL's checkpoints. */
async function deleteDerivedState(t: TestContext, dbPath: string): Promise<void> {
  const db = openTestSql(t, dbPath);
  const tables = db.backend === 'sqlite' ? ['event_checkpoint', 'event_dedup', 'event_time_index', 'event_users', 'event_day_sets'] : ['event_checkpoints'];
  for (const table of tables) await db.run(`DELETE FROM ${table}`);
  assert.equal(await db.value(`SELECT count(*) FROM ${tables.at(-1)}`), 0);
}

test('statistics equal a brute-force count over the raw events, before and after a restart from the checkpoint', async (t) => {
  const first = await startTestServer(t);
  const { keys, dbPath } = first;
  const events = workload(6000, 7);
  await send(first.url, keys.sdk, events);
  const raw = await exported(first.url, keys.secret);
  assert.equal(raw.length, 6000 + events.filter((event) => event.id === undefined).length);
  const answered = await checkAgainstRawEvents(first.url, keys.secret);
  await first.server.stop();

  // From the checkpoint the server wrote when it stopped.
  const second = await restartServer(t, dbPath);
  assert.deepEqual(await answers(second, keys.secret), answered);
  // More events on top of the loaded state, still equal to a recount.
  await send(second, keys.sdk, workload(1500, 8));
  await checkAgainstRawEvents(second, keys.secret);
});

test('derived state deleted: the restart rebuilds statistics, dedup and export order from the raw events', async (t) => {
  const first = await startTestServer(t);
  const { keys, dbPath } = first;
  const events = workload(3000, 11);
  await send(first.url, keys.sdk, events);
  const answered = await checkAgainstRawEvents(first.url, keys.secret);
  const exportedBefore = await exported(first.url, keys.secret);
  await first.server.stop();

  await deleteDerivedState(t, dbPath);
  const second = await restartServer(t, dbPath);
  assert.deepEqual(await answers(second, keys.secret), answered);
  assert.deepEqual(await exported(second, keys.secret), exportedBefore);
  // The dedup keys are back: a retry of every batch stores only the id-less events again.
  const withIds = events.filter((event) => event.id !== undefined);
  const retry = await ingest(second, keys.sdk, { events: withIds.slice(0, 1000) });
  assert.deepEqual([retry.accepted, retry.duplicates], [0, 1000]);
  assert.deepEqual(await answers(second, keys.secret), answered);
});

// The rebuild is held by SQLite's write lock; PostgreSQL's rebuild takes no lock a test could hold.
test(
  'statistics asked while the derived state is still being rebuilt answer 503 stats_warming_up with Retry-After, then the right numbers',
  needs(SQLITE_BACKEND),
  async (t) => {
    const first = await startTestServer(t);
    const { keys, dbPath } = first;
    await send(first.url, keys.sdk, workload(500, 3));
    const answered = await checkAgainstRawEvents(first.url, keys.secret);
    await first.server.stop();

    await deleteDerivedState(t, dbPath);
    // Another connection takes the write lock right after the server migrated (startServer is synchronous up
    // to listening) and long before its writer thread has loaded its code: the rebuild, which first empties
    // the derived tables, waits for the lock.
    const lock = openTestDb(t, dbPath);
    const starting = restartServer(t, dbPath);
    lock.exec('BEGIN IMMEDIATE');
    const second = await starting;
    const range = ranges()[0]!;
    const early = await fetch(`${second}/api/paywalls/pw/stats?${new URLSearchParams(range)}`, { headers: bearer(keys.secret) });
    assert.equal(early.status, 503);
    assert.equal(early.headers.get('retry-after'), '1');
    assert.equal((await early.json()).code, 'stats_warming_up');
    // Resolve and ingestion's neighbours keep answering meanwhile.
    assert.equal((await fetch(`${second}/api/paywalls/pw`, { headers: bearer(keys.secret) })).status, 404);
    lock.exec('COMMIT');
    assert.deepEqual(await answers(second, keys.secret), answered);
  },
);

/**
 * A SQLite database migrated only up to `version`, as an older paywalld left it: one project, and the
 * insert of an event row with the columns every version has (paywall 'pw', variant 'control').
 */
async function databaseAtVersion(t: TestContext, version: number) {
  const dbPath = path.join(tempDir(t), 'paywalld.db');
  const db = openDatabase(dbPath);
  migrate(
    db,
    migrations.filter((migration) => migration.version <= version),
  );
  // A project and its keys as that schema holds them: today's stores prepare statements for columns it does not have yet.
  const project = { id: 'prj_old', name: 'old' };
  db.prepare('INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)').run(project.id, project.name, Date.now());
  const keys = { sdk: generateKey('sdk'), secret: generateKey('secret') };
  for (const scope of ['sdk', 'secret'] as const) {
    const key = keys[scope];
    db.prepare('INSERT INTO api_keys (id, project_id, scope, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      `key_old_${scope}`,
      project.id,
      scope,
      key.prefix,
      key.hash,
      Date.now(),
    );
  }
  const insert = db.prepare(
    `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, sent_at, received_at, event_id, user_id, variant_id, product_id, properties)
     VALUES (?, 'pw', ?, ?, ?, NULL, ?, ?, ?, 'control', NULL, NULL)`,
  );
  return { dbPath, db, project, keys: { sdk: keys.sdk.plain, secret: keys.secret.plain }, insert };
}

test('a database from before migration 5 keeps its events: the first start counts them and knows their ids', needs(SQLITE_BACKEND), async (t) => {
  const { dbPath, db: old, project, keys, insert } = await databaseAtVersion(t, 4);
  const now = Date.now();
  const events: Json[] = [];
  for (let i = 0; i < 300; i++) {
    const event = {
      type: i % 3 === 0 ? 'purchase_complete' : 'screen_impression',
      paywall_id: 'pw',
      ts: now - i * 60_000,
      id: `old-${i}`,
      user_id: `u${i % 40}`,
      variant_id: 'control',
    };
    insert.run(project.id, event.type, event.ts, event.ts, now, event.id, event.user_id);
    events.push(event);
  }
  old.close();

  const url = await restartServer(t, dbPath);
  const range = { from: dayText(now - 2 * DAY), to: dayText(now) };
  const response = await fetchStats(url, keys.secret, 'pw', range);
  assert.equal(response.status, 200);
  assert.deepEqual((await response.json()).variants, bruteForce(await exported(url, keys.secret), 'pw', range.from, range.to));
  // The old events' ids are known to the rebuilt dedup index: resent, they are duplicates.
  const resent = await ingest(url, keys.sdk, { events: events.slice(0, 50) });
  assert.deepEqual([resent.accepted, resent.duplicates], [0, 50]);
});

test(
  'a database from before migration 8 (text-keyed indexes and a checkpoint) is rebuilt at its first start: statistics, dedup and export order',
  needs(SQLITE_BACKEND),
  async (t) => {
    const { dbPath, db: old, project, keys, insert } = await databaseAtVersion(t, 7);
    const now = Date.now();
    const events: Json[] = [];
    for (let i = 0; i < 300; i++) {
      // Stored out of time order, as concurrent devices send them.
      const event = {
        type: i % 4 === 0 ? 'purchase_complete' : 'screen_impression',
        paywall_id: 'pw',
        ts: now - ((i * 7919) % 300) * 60_000,
        id: `v7-${i}`,
        user_id: `u${i % 30}`,
        variant_id: 'control',
      };
      const seq = Number(insert.run(project.id, event.type, event.ts, event.ts, now, event.id, event.user_id).lastInsertRowid);
      // The index entries and the checkpoint a server of migration 7 wrote (its day sets are left out: only a rebuild counts the events).
      old.prepare('INSERT INTO event_dedup (project_id, client_ts, event_id) VALUES (?, ?, ?)').run(project.id, event.ts, event.id);
      old.prepare('INSERT INTO event_time_index (project_id, ts, seq) VALUES (?, ?, ?)').run(project.id, event.ts, seq);
      events.push(event);
    }
    old.prepare('INSERT INTO event_checkpoint (id, seq, at) VALUES (1, 300, ?)').run(now);
    old.close();

    const url = await restartServer(t, dbPath);
    const range = { from: dayText(now - 2 * DAY), to: dayText(now) };
    const response = await fetchStats(url, keys.secret, 'pw', range);
    assert.equal(response.status, 200);
    const stats = await response.json();
    assert.deepEqual(stats.variants, bruteForce(events, 'pw', range.from, range.to));
    assert.equal(stats.variants[0].totals.counts.purchase_complete, 75);
    const all = await exported(url, keys.secret);
    assert.deepEqual(
      all.map((e) => e.id),
      [...events].sort((a, b) => a.ts - b.ts || Number(a.id.slice(3)) - Number(b.id.slice(3))).map((e) => e.id),
    );
    const resent = await ingest(url, keys.sdk, { events: events.slice(0, 50) });
    assert.deepEqual([resent.accepted, resent.duplicates], [0, 50]);
  },
);
