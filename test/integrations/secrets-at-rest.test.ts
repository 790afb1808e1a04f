/**
 * Connector secrets at rest (docs/guide/revenue.md, "Secrets at rest"): sealed
 * with a key kept outside the database, so that the stored bytes, a backup
 * and a copy of the database alone never hold the secret; configurations
 * stored in plaintext by an earlier version are sealed at the next start.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { openTestSql } from '../helpers/database.ts';
import { configured, deliver } from '../helpers/hooks.ts';
import { problem } from '../helpers/problem.ts';
import { needs, SQLITE_BACKEND } from '../helpers/requirements.ts';
import { serverOn, startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const SECRET = 'whsec_at_rest_0123456789abcdefghij';

function signed(body: string, secret = SECRET): Record<string, string> {
  const t = Math.floor(Date.now() / 1000);
  return { 'stripe-signature': `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}` };
}

/** A Stripe event paywalld does not use: answered 200 once its signature verifies. */
const EVENT = JSON.stringify({ id: 'evt_unused', object: 'event', type: 'customer.created', created: Math.floor(Date.now() / 1000), data: { object: {} } });

/** Every byte SQLite keeps of a database: the file and, when there is one, its WAL. */
function storedBytes(db: string): Buffer {
  return Buffer.concat([db, `${db}-wal`].filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file)));
}

test(
  'the secret is not in the database file, its WAL or a backup; the key file beside it is 0600; a copy without the key cannot verify',
  needs(SQLITE_BACKEND),
  async (t) => {
    const dir = tempDir(t);
    const db = path.join(dir, 'paywalld.db');
    const first = await startTestServer(t, { dbPath: db });
    await configured(first.url, first.keys.secret, 'stripe', { signing_secret: SECRET });
    assert.equal((await deliver(first.url, 'stripe', first.projectId, EVENT, signed(EVENT))).status, 200);
    assert.equal(fs.statSync(`${db}-secrets.key`).mode & 0o777, 0o600);
    assert.equal(storedBytes(db).includes(SECRET), false, 'while serving');
    const backup = path.join(dir, 'backup.db');
    const copied = await runCli(['backup', backup, '--db', db]);
    assert.equal(copied.status, 0, copied.stderr);
    assert.equal(fs.statSync(backup).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(backup).includes(SECRET), false, 'in the backup');
    await first.server.stop();
    assert.equal(storedBytes(db).includes(SECRET), false, 'after the stop');

    // The backup alone, served elsewhere: the configuration is there, its secret is not.
    const elsewhere = path.join(tempDir(t), 'copy.db');
    fs.copyFileSync(backup, elsewhere);
    const copy = await serverOn(t, elsewhere);
    const refused = await problem(await deliver(copy.url, 'stripe', first.projectId, EVENT, signed(EVENT)), 503, 'secrets_unavailable');
    assert.match(refused.detail, /key file .* cannot be read/);
    await copy.server.stop();
    // With the key beside it, it verifies again.
    fs.copyFileSync(`${db}-secrets.key`, `${elsewhere}-secrets.key`);
    const keyed = await serverOn(t, elsewhere);
    assert.equal((await deliver(keyed.url, 'stripe', first.projectId, EVENT, signed(EVENT))).status, 200);
    // Another key: refused, naming both.
    await keyed.server.stop();
    fs.writeFileSync(`${elsewhere}-secrets.key`, `${crypto.randomBytes(32).toString('base64')}\n`);
    const rekeyed = await serverOn(t, elsewhere);
    const other = await problem(await deliver(rekeyed.url, 'stripe', first.projectId, EVENT, signed(EVENT)), 503, 'secrets_unavailable');
    assert.match(other.detail, /sealed with another key/);
  },
);

test('a configuration stored in plaintext by an earlier version is sealed at the next start and still verifies', async (t) => {
  const first = await startTestServer(t);
  const sql = openTestSql(t, first.dbPath);
  await first.server.stop();
  // What an earlier version wrote: the configuration as JSON text.
  await sql.run(
    'INSERT INTO integrations (project_id, provider, config, updated_at) VALUES (?, ?, ?, ?)',
    first.projectId,
    'stripe',
    JSON.stringify({ signing_secret: SECRET }),
    1,
  );
  // Other projects' beside it, in the same page of the file: a row sealed (and grown) leaves no plaintext in the page's free space.
  for (const other of ['prj_other_1', 'prj_other_2', 'prj_other_3']) {
    await sql.run(
      'INSERT INTO integrations (project_id, provider, config, updated_at) VALUES (?, ?, ?, ?)',
      other,
      'stripe',
      JSON.stringify({ signing_secret: `${SECRET}-${other}` }),
      1,
    );
  }
  if (sql.backend === 'sqlite') assert.equal(storedBytes(first.dbPath).includes(SECRET), true, 'the plaintext is in the file before');
  const again = await serverOn(t, first.dbPath);
  const stored = String(await sql.value('SELECT config FROM integrations WHERE project_id = ?', first.projectId));
  assert.equal(stored.includes(SECRET), false);
  assert.equal(JSON.parse(stored).sealed, 'aes-256-gcm');
  assert.equal(await sql.value('SELECT updated_at FROM integrations WHERE project_id = ?', first.projectId), 1);
  // While it serves, too: the page that held it was written over in the file, not only in the WAL.
  if (sql.backend === 'sqlite') assert.equal(storedBytes(first.dbPath).includes(SECRET), false, 'the file holds the secret no more');
  assert.equal((await deliver(again.url, 'stripe', first.projectId, EVENT, signed(EVENT))).status, 200);
  await problem(await deliver(again.url, 'stripe', first.projectId, EVENT, signed(EVENT, 'whsec_another_secret_0123456789')), 401, 'invalid_signature');
});

test(
  'PostgreSQL without --secrets-key-file refuses to store a connector configuration in plaintext',
  needs({ backend: 'postgres', reason: 'about a server without a key file' }),
  async (t) => {
    const { url, keys } = await startTestServer(t, { secretsKeyFile: undefined });
    const response = await fetch(`${url}/api/integrations/stripe`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ signing_secret: SECRET }),
    });
    const refused = await problem(response, 503, 'secrets_unavailable');
    assert.match(refused.detail, /--secrets-key-file/);
  },
);
