/**
 * StoredEventPages, what the replay and the rebuild read the stored events
 * through (each page one JSON text from SQLite): every value comes back as
 * the driver itself reads it, whatever the text (quotes, backslashes,
 * control characters, any script, a lone surrogate as stored) and whatever
 * the double, and pages follow seq order without a gap across their limit.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { STORED_EVENT_COLUMNS } from '../../src/analytics/derived-event.ts';
import { EVENT_PAGE, StoredEventPages } from '../../src/analytics/event-pages.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { tempDir } from '../helpers/temp.ts';

const TEXTS = ['plain', 'quote " and \\ backslash', 'tab\tnew\nline\0nul\u001f', 'ünïcödé 用户 😀', 'a\ud800b', '', 'x'.repeat(256)];
const REVENUES = [9.99, 0.1 + 0.2, 1e9, 5e-324, 2 ** 53 - 1, 0, 123456.789, 1 / 3, null];

test('a page reads back every stored value exactly as the driver does, in seq order, page after page', (t) => {
  const db = openDatabase(path.join(tempDir(t), 'pages.db'));
  t.after(() => db.close());
  migrate(db);
  const insert = db.prepare(
    `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, sent_at, received_at, event_id, user_id, variant_id, product_id, properties, audience, revenue, currency)
     VALUES (?, 'p', ?, ?, ?, ?, ?, ?, ?, ?, ?, '{"big":true}', ?, ?, ?)`,
  );
  const count = EVENT_PAGE + 100;
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const text = TEXTS[i % TEXTS.length]!;
      const revenue = REVENUES[i % REVENUES.length]!;
      const ts = 1_767_225_600_000 + i * 7919;
      insert.run(
        `proj_${i % 3}`,
        i % 5 === 0 ? 'purchase_complete' : text,
        ts,
        ts - 17,
        i % 2 ? null : ts + 1,
        ts,
        text,
        text,
        text,
        text,
        text,
        revenue,
        revenue === null ? null : 'USD',
      );
    }
  })();
  const driver = db.prepare(`SELECT ${STORED_EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq`).raw();
  const pages = new StoredEventPages(db);

  const first = pages.after(0);
  assert.equal(first.length, EVENT_PAGE);
  const rest = pages.after(first.at(-1)!.at(-1) as number);
  assert.equal(rest.length, 100);
  assert.deepEqual([...first, ...rest], driver.all(0));
  assert.deepEqual(pages.after(count), []);
  // An upper bound stops a page early: what the rebuild reads up to the last seq it saw at its start.
  assert.deepEqual(pages.after(10, 20), driver.all(10).slice(0, 10));
});
