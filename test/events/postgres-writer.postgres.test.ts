/**
 * The PostgreSQL event writer thread driven directly, as two instances on
 * one real database (test/helpers/postgres.ts) would drive it: deduplication
 * and the ingestion limits exact across instances, every instance's
 * statistics and results equal to the SQLite writer's for the same events, a
 * batch acknowledged only once committed while PostgreSQL stops and starts
 * again, and the background work moving to another instance when its leader
 * goes.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import type { FoldQuery } from '../../src/analytics/fold/fold-types.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { targetOf } from '../../src/db/target.ts';
import type { EventRow } from '../../src/events/event-row.ts';
import { exportEvents } from '../../src/events/export.ts';
import { parseEnvelope, prepareBatch } from '../../src/events/ingest.ts';
import { exportPostgresEvents } from '../../src/events/postgres-export.ts';
import { EventWriter } from '../../src/events/writer/writer.ts';
import { Logger } from '../../src/log.ts';
import { writerThreadScript } from '../../src/storage/writer-thread-script.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

const PROJECT = 'p1';
const PAYWALL = 'onboarding';
const DAY = Date.UTC(2026, 0, 1);
const QUERY: FoldQuery = { from: 0, to: null, variants: ['control', 'treatment'], conversionWindowMs: null, winsorizePercentile: null };

interface Instance {
  writer: EventWriter;
  lines: string[];
}

/** An EventWriter on `dbPath` (a SQLite file or a postgres:// URL), closed when the test ends, with what it logs. */
function instance(t: TestContext, dbPath: string, retentionDays?: number): Instance {
  const lines: string[] = [];
  const writer = new EventWriter({
    target: targetOf(dbPath),
    script: writerThreadScript(targetOf(dbPath)),
    retentionDays,
    queueLimit: 1_000_000,
    queueBytes: 256 * 1024 * 1024,
    log: new Logger('info', { sink: (text) => lines.push(text) }),
  });
  t.after(() => writer.close());
  return { writer, lines };
}

function event(n: number, overrides: Partial<Record<'type' | 'userId' | 'variantId' | 'audience' | 'eventId', string | null>> = {}): EventRow {
  const ts = DAY + (n % 3) * 86_400_000 + n;
  const type = overrides.type ?? (n % 7 === 0 ? 'purchase_complete' : n % 3 === 0 ? 'paywall_close' : 'screen_impression');
  const revenue = type === 'purchase_complete' ? 4.99 : null;
  return [
    PROJECT,
    PAYWALL,
    type,
    ts,
    ts,
    null,
    ts,
    overrides.eventId === undefined ? `e-${n}` : overrides.eventId,
    overrides.userId === undefined ? `u-${n % 40}` : overrides.userId,
    overrides.variantId === undefined ? (n % 40 < 20 ? 'control' : 'treatment') : overrides.variantId,
    null,
    null,
    overrides.audience ?? null,
    revenue,
    revenue === null ? null : 'USD',
    null,
  ];
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

async function postgresUrl(t: TestContext): Promise<string> {
  const { url } = await postgresDatabase(t);
  await migratePostgres(testPool(t, url, 1));
  return url;
}

function sqliteFile(t: TestContext): string {
  const file = path.join(tempDir(t), 'events.db');
  const db = openDatabase(file);
  migrate(db);
  db.close();
  return file;
}

async function ready(writer: EventWriter): Promise<void> {
  await until(() => writer.statsReady, 'the derived state', 30_000);
}

/** What an instance answers: the statistics of the paywall and the results of the default segment. */
async function answers(writer: EventWriter): Promise<unknown> {
  return {
    stats: await writer.stats(PROJECT, PAYWALL, 0, 30_000),
    results: await writer.results(PROJECT, PAYWALL, null, QUERY),
  };
}

test('two instances: a batch sent to both is stored once, and both answer what the SQLite writer answers', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const sql = testPool(t, url);
  const a = instance(t, url).writer;
  const b = instance(t, url).writer;
  const file = sqliteFile(t);
  const sqlite = instance(t, file).writer;

  // The same batch to both at once: one of them stores each event, the other finds it a duplicate.
  const first = range(0, 200).map((n) => event(n));
  const [toA, toB] = await Promise.all([a.write(first), b.write(first)]);
  assert.equal(toA.inserted + toB.inserted, 200);
  assert.deepEqual(await sqlite.write(first), { inserted: 200, refused: [] });

  // Concurrent batches, each to one instance, some events sent to both, some without an id.
  const batches = range(0, 20).map((i) => range(200 + i * 50, 250 + i * 50).map((n) => event(n, n % 11 === 0 ? { eventId: null } : {})));
  const outcomes = await Promise.all(batches.flatMap((batch, i) => (i % 4 === 0 ? [a.write(batch), b.write(batch)] : [(i % 2 === 0 ? a : b).write(batch)])));
  const inserted = outcomes.reduce((sum, outcome) => sum + outcome.inserted, 0);
  let expected = 0;
  for (const batch of batches) expected += (await sqlite.write(batch)).inserted;
  // Events without an id sent twice are two events (docs/reference/events.md, "Deduplication").
  const withoutId = batches
    .filter((_, i) => i % 4 === 0)
    .flat()
    .filter((row) => row[7] === null).length;
  assert.equal(inserted, expected + withoutId);
  for (const batch of batches.filter((_, i) => i % 4 === 0)) await sqlite.write(batch.filter((row) => row[7] === null));

  const [{ count }] = (await sql`SELECT count(*)::int AS count FROM events`) as unknown as [{ count: number }];
  assert.equal(count, 200 + expected + withoutId);
  // A purchase record that results read (migration 10) in both databases.
  const purchase = [PROJECT, 'api', 'sale-1', 'u-3', 'initial_purchase', DAY + 86_400_000, 9.99, 'EUR', DAY] as const;
  const insertPurchase = 'INSERT INTO purchases (project_id, source, purchase_id, user_id, type, ts, revenue, currency, received_at) VALUES';
  await sql.unsafe(`${insertPurchase} ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [...purchase]);
  const db = openDatabase(file);
  db.prepare(`${insertPurchase} (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...purchase);
  // An identity link between two users of the events: results count them as one.
  const link = [PROJECT, 'u-5', 'u-3', DAY] as const;
  // The project's first link: seq 1 (migration 15).
  await sql.unsafe('INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq) VALUES ($1, $2, $3, $4, 1)', [...link]);
  db.prepare('INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq) VALUES (?, ?, ?, ?, 1)').run(...link);
  db.close();

  await Promise.all([ready(a), ready(b), ready(sqlite)]);
  const reference = await answers(sqlite);
  await until(async () => JSON.stringify(await answers(a)) === JSON.stringify(reference), 'instance A to answer as SQLite');
  await until(async () => JSON.stringify(await answers(b)) === JSON.stringify(reference), 'instance B to answer as SQLite');
});

test('the ingestion limits are exact across instances: event types past the limit, split over two writers', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const sql = testPool(t, url);
  const a = instance(t, url).writer;
  const b = instance(t, url).writer;
  // 600 new types through each instance at once, in batches of 50: the project may store 1,000.
  const batches = (prefix: string) =>
    range(0, 12).map((i) => range(i * 50, i * 50 + 50).map((n) => event(n, { type: `${prefix}_${n}`, eventId: `${prefix}-${n}` })));
  const outcomes = await Promise.all([...batches('a').map((batch) => a.write(batch)), ...batches('b').map((batch) => b.write(batch))]);
  const inserted = outcomes.reduce((sum, outcome) => sum + outcome.inserted, 0);
  const refused = outcomes.flatMap((outcome) => outcome.refused.map(([, code]) => code));
  assert.equal(inserted, 1000);
  assert.deepEqual(new Set(refused), new Set(['too_many_event_types']));
  assert.equal(refused.length, 200);
  const [{ types }] = (await sql`SELECT count(DISTINCT type)::int AS types FROM events`) as unknown as [{ types: number }];
  assert.equal(types, 1000);
  // A retry of a stored event through the other instance is a duplicate, not refused, although the project is at its limit.
  const [stored] = (await sql`SELECT type, event_id FROM events WHERE event_id LIKE 'a-%' ORDER BY seq LIMIT 1`) as unknown as [
    { type: string; event_id: string },
  ];
  const n = Number(stored.event_id.slice(2));
  assert.deepEqual(await b.write([event(n, { type: stored.type, eventId: stored.event_id })]), { inserted: 0, refused: [] });
  assert.deepEqual((await b.write([event(5000, { type: 'one_more', eventId: 'c-1' })])).refused, [[0, 'too_many_event_types']]);
});

test(
  'a batch is acknowledged only once committed: PostgreSQL stopped under load answers database_unavailable, and the writer recovers by itself',
  needs(POSTGRES),
  async (t) => {
    const { cluster, url } = await postgresDatabase(t);
    await migratePostgres(testPool(t, url, 1));
    const { writer } = instance(t, url);
    await ready(writer);
    const acknowledged: string[] = [];
    const failures: unknown[] = [];
    let sending = true;
    let batch = 0;
    /** One client: a batch of 100 events after another, whatever the answers. */
    async function client(name: string): Promise<void> {
      while (sending) {
        const rows = range(0, 100).map((n) => event(n, { eventId: `${name}-${batch}-${n}` }));
        batch++;
        try {
          await writer.write(rows);
          for (const row of rows) acknowledged.push(row[7]!);
        } catch (error) {
          failures.push(error);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
    const clients = Promise.all(['x', 'y', 'z'].map((name) => client(name)));
    await until(() => acknowledged.length >= 3000, 'batches acknowledged before the stop', 30_000);
    cluster.stop('immediate');
    await until(() => failures.length >= 3, 'batches refused while PostgreSQL is down', 30_000);
    const before = acknowledged.length;
    cluster.start();
    await until(() => acknowledged.length >= before + 3000, 'batches acknowledged after the restart', 60_000);
    sending = false;
    await clients;

    for (const error of failures) assert.equal((error as { code?: string }).code, 'database_unavailable', String(error));
    const sql = testPool(t, url);
    const stored = new Set(((await sql`SELECT event_id FROM events`) as unknown as { event_id: string }[]).map((row) => row.event_id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], 'every acknowledged event is stored');
  },
);

/** Which instance's log says it leads now (the last of its leadership lines). */
function leads({ lines }: Instance): boolean {
  const said = lines.filter((line) => line.includes('leading the background event work'));
  return said.at(-1)?.includes('"no longer') === false;
}

test('retention runs on one instance at a time, and moves when its leader goes', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const sql = testPool(t, url);
  const instances: Instance[] = [instance(t, url, 1)];
  const old = Date.now() - 3 * 86_400_000;
  const insertOld = (prefix: string) =>
    sql.unsafe(
      `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, event_id) SELECT $1, $2, 'screen_impression', $3, $3, $3, $4 || n FROM generate_series(1, 5) n`,
      [PROJECT, PAYWALL, old, prefix],
    );
  const count = async () => ((await sql`SELECT count(*)::int AS count FROM events`) as unknown as [{ count: number }])[0].count;
  const holder = async () =>
    ((await sql`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 3 AND granted`) as unknown as { pid: number }[]).map((row) => row.pid);

  await insertOld('first-');
  const [leader] = instances as [Instance];
  await until(() => leads(leader), 'the instance to lead', 20_000);
  await until(async () => (await count()) === 0, 'the leader to delete the old events', 20_000);
  // A second instance does not lead while the first holds the lock.
  const other = instance(t, url, 1);
  instances.push(other);
  await ready(other.writer);
  assert.deepEqual((await holder()).length, 1);
  assert.equal(leads(other), false);

  // More old events (the leader's pass is done: the next one is ten minutes away), then the leader closes: the other takes
  // over and runs a pass at once.
  await insertOld('second-');
  await leader.writer.close();
  await until(() => leads(other), 'the other instance to lead', 20_000);
  await until(async () => (await count()) === 0, 'the new leader to delete the old events', 30_000);

  // The leader's connection is cut: its session's lock is gone, and a session (the third instance's, or the leader's
  // new one) holds it again within seconds; then exactly one instance says it leads.
  const third = instance(t, url, 1);
  instances.push(third);
  await ready(third.writer);
  const [cut] = await holder();
  await sql`SELECT pg_terminate_backend(${cut!})`;
  await until(
    async () => {
      const now = await holder();
      return now.length === 1 && now[0] !== cut;
    },
    'the lock to be held by another session',
    20_000,
  );
  // A leader whose work was cut mid-query may wait out its attempt's limit (30 s) before it knows it lost the lock.
  await until(() => instances.filter((candidate) => candidate !== leader && leads(candidate)).length === 1, 'one instance to lead after the cut', 45_000);
});

test('a NUL character or a lone surrogate is refused by index before PostgreSQL sees it; the rest of the batch is stored', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const { writer } = instance(t, url);
  await ready(writer);
  const receivedAt = Date.now();
  const good = (id: string, user_id: string) => ({ type: 'screen_impression', paywall_id: PAYWALL, ts: receivedAt, id, user_id, variant_id: 'control' });
  // Through JSON, as the server receives them: the escapes come back as NUL and a lone surrogate.
  const batch = JSON.parse(
    JSON.stringify({ events: [good('ok-1', 'u1'), good('nul', 'nul\u0000user'), good('ok-2', 'smile \ud83d\ude00'), good('lone\ud800', 'u3')] }),
  ) as unknown;
  // The project is the key's (a secret key) and every event names its variant: the directories are asked only what is declared.
  const paywalls = { projectsWithPaywall: () => [PROJECT], variantFor: () => undefined, declared: () => undefined };
  const placements = { get: () => undefined };
  const prepared = prepareBatch(parseEnvelope(batch), { projectId: PROJECT, secretKey: true, receivedAt, paywalls, placements });
  assert.deepEqual(
    prepared.rejected.map(({ index, code }) => [index, code]),
    [
      [1, 'invalid_event'],
      [3, 'invalid_event'],
    ],
  );
  assert.deepEqual(await writer.write(prepared.rows), { inserted: 2, refused: [] });
  let exported = '';
  for await (const chunk of exportPostgresEvents(testPool(t, url), { projectId: PROJECT, paywallId: undefined, from: 0, to: Number.MAX_SAFE_INTEGER }))
    exported += chunk;
  assert.deepEqual(
    exported
      .trim()
      .split('\n')
      .map((line) => [JSON.parse(line).id, JSON.parse(line).user_id]),
    [
      ['ok-1', 'u1'],
      ['ok-2', 'smile \ud83d\ude00'],
    ],
  );
});

test('a request PostgreSQL refuses fails alone, not the other requests of its group commit', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const { writer } = instance(t, url);
  await ready(writer);
  // The edge refuses a NUL (above); written to the thread directly, it is a statement PostgreSQL refuses, as any other could be.
  // Posted in the same turn of the event loop: they reach the thread together and form one group.
  const [good, bad, other] = await Promise.allSettled([
    writer.write([event(1)]),
    writer.write([event(2, { userId: 'nul\u0000user' })]),
    writer.write([event(3), event(4)]),
  ]);
  assert.deepEqual(good, { status: 'fulfilled', value: { inserted: 1, refused: [] } });
  assert.deepEqual(other, { status: 'fulfilled', value: { inserted: 2, refused: [] } });
  assert.equal(bad.status, 'rejected');
  assert.equal((bad as PromiseRejectedResult).reason.code, 'ingestion_failed');
});

test("an instance whose connections are cut (its LISTEN too) still converges on the other instance's events", needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const sql = testPool(t, url);
  const a = instance(t, url).writer;
  const b = instance(t, url).writer;
  await Promise.all([ready(a), ready(b)]);
  const count = async (writer: EventWriter) =>
    (await writer.stats(PROJECT, PAYWALL, 0, 30_000)).reduce((sum, variant) => sum + Object.values(variant.totals.counts).reduce((x, y) => x + y, 0), 0);
  await a.write(range(0, 50).map((n) => event(n)));
  await until(async () => (await count(b)) === 50, 'B to fold A’s first batch');
  // Every connection of the writer threads is cut: the LISTEN connections' notifications of the next batches are lost with them.
  await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('paywalld events', 'paywalld leader')`;
  for (let i = 1; i <= 3; i++) {
    const rows = range(i * 50, i * 50 + 50).map((n) => event(n));
    // The first write after the cut may meet a dead connection (503): a client retries the same batch.
    await until(async () => {
      try {
        await a.write(rows);
        return true;
      } catch (error) {
        assert.equal((error as { code?: string }).code, 'database_unavailable');
        return false;
      }
    }, `A to store batch ${i}`);
  }
  await until(async () => (await count(b)) === 200, 'B to fold every batch A stored after the cut', 15_000);
  assert.equal(await count(a), 200);
});

test('a starting instance loads the leader’s checkpoint: it counts events retention deleted, and the events after it', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const sql = testPool(t, url);
  const a = instance(t, url);
  await ready(a.writer);
  await a.writer.write(range(0, 300).map((n) => event(n, n % 5 === 0 ? { audience: 'vip' } : {})));
  const [{ last }] = (await sql`SELECT max(seq)::int AS last FROM events`) as unknown as [{ last: number }];
  await until(async () => (await sql`SELECT 1 FROM event_checkpoints WHERE seq = ${last}`).length === 1, 'the leader’s checkpoint', 30_000);
  // As retention would: the raw events the checkpoint counts are gone, and no rebuild could count them again.
  await sql`DELETE FROM events WHERE seq <= ${last}`;
  await a.writer.write(range(300, 400).map((n) => event(n)));

  const c = instance(t, url);
  await ready(c.writer);
  assert.ok(c.lines.some((line) => line.includes('"event statistics ready"') && line.includes(`"checkpoint_seq":${last}`)));
  assert.deepEqual(await answers(c.writer), await answers(a.writer));
  const vip = (writer: EventWriter) => writer.results(PROJECT, PAYWALL, 'vip', QUERY);
  assert.deepEqual(await vip(c.writer), await vip(a.writer));
  assert.notDeepEqual(((await answers(c.writer)) as { stats: unknown[] }).stats, []);
});

test('the export on PostgreSQL answers byte for byte what the SQLite export answers', needs(POSTGRES), async (t) => {
  const url = await postgresUrl(t);
  const file = sqliteFile(t);
  const postgresWriter = instance(t, url).writer;
  const sqliteWriter = instance(t, file).writer;
  // Distinct times: the order among equal times is the order of receipt, each backend's own.
  const rows = range(0, 3000).map((n) => {
    const row = event(n, n % 9 === 0 ? { eventId: null, audience: 'vip' } : {});
    row[11] = n % 4 === 0 ? `{"n":${n},"text":"line\\nbreak"}` : null;
    row[1] = n % 2 === 0 ? PAYWALL : 'other';
    return row;
  });
  for (let i = 0; i < rows.length; i += 500) {
    await postgresWriter.write(rows.slice(i, i + 500));
    await sqliteWriter.write(rows.slice(i, i + 500));
  }
  await sqliteWriter.close();
  const sql = testPool(t, url);
  for (const range of [
    { projectId: PROJECT, paywallId: undefined, from: 0, to: Number.MAX_SAFE_INTEGER },
    { projectId: PROJECT, paywallId: PAYWALL, from: DAY + 86_400_000, to: DAY + 2 * 86_400_000 },
  ]) {
    let postgres = '';
    for await (const chunk of exportPostgresEvents(sql, range)) postgres += chunk;
    const sqlite = [...exportEvents(file, range)].join('');
    assert.ok(sqlite.length > 0);
    assert.equal(postgres, sqlite);
  }
  // An export abandoned half-way gives its connection back: a pool of one serves the next one.
  const one = testPool(t, url, 1);
  for await (const _ of exportPostgresEvents(one, { projectId: PROJECT, paywallId: undefined, from: 0, to: Number.MAX_SAFE_INTEGER })) break;
  let again = 0;
  for await (const chunk of exportPostgresEvents(one, { projectId: PROJECT, paywallId: undefined, from: 0, to: Number.MAX_SAFE_INTEGER }))
    again += chunk.split('\n').length - 1;
  assert.equal(again, 3000);
});
