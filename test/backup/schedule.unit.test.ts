import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { parseInterval, prune, scheduleBackups, snapshotName } from '../../src/backup/schedule.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { Logger } from '../../src/log.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { DIST } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

/** A migrated database in a temp dir, and a logger whose lines the test reads (`logged` counts those with a message). */
function liveDatabase(t: TestContext) {
  const dir = tempDir(t);
  const file = path.join(dir, 'live.db');
  const db = openDatabase(file);
  t.after(() => db.close());
  migrate(db);
  const written: string[] = [];
  const log = new Logger('info', { sink: (text) => written.push(...text.trim().split('\n')) });
  const logged = (msg: string) => written.filter((l) => l.includes(`"msg":"${msg}"`)).length;
  return { dir, file, db, written, log, logged };
}

test('scheduled snapshots are consistent copies, named by time, and only the newest are kept', async (t) => {
  const { dir, file, db, written, log, logged } = liveDatabase(t);
  await openSqliteStorage(db).projects.create('kept', TEST_CHANGE);
  let clock = Date.parse('2026-11-25T06:00:00Z');
  const backups = path.join(dir, 'backups');
  fs.mkdirSync(backups);
  fs.writeFileSync(path.join(backups, 'notes.txt'), 'not a snapshot');
  const stop = scheduleBackups(file, { dir: backups, everyMs: 5, keep: 2 }, log, () => new Date((clock += 3_600_000)));
  try {
    await until(() => logged('backup written') >= 4);
  } finally {
    await stop();
  }
  assert.equal(written.filter((l) => l.includes('"level":"error"')).length, 0);
  const files = fs.readdirSync(backups).sort();
  assert.equal(files.length, 3);
  assert.equal(files[0], 'notes.txt');
  assert.ok(files.slice(1).every((f) => /^paywalld-20261125T\d{6}\.\d{3}Z\.db$/.test(f)));
  // Every key hash and event is in a snapshot: its owner's only, whatever the umask.
  for (const f of files.slice(1)) assert.equal(fs.statSync(path.join(backups, f)).mode & 0o777, 0o600, f);
  const copy = openDatabase(path.join(backups, files[2]!), { mustExist: true });
  t.after(() => copy.close());
  assert.deepEqual(copy.prepare('SELECT name FROM projects').pluck().all(), ['kept']);
});

test('a failed snapshot is logged and the schedule goes on', async (t) => {
  const { dir, file, log, logged } = liveDatabase(t);
  // A file where the backup folder should be: every snapshot fails.
  const blocked = path.join(dir, 'blocked');
  fs.writeFileSync(blocked, '');
  const stop = scheduleBackups(file, { dir: blocked, everyMs: 5, keep: 2 }, log);
  try {
    await until(() => logged('backup failed') >= 2);
  } finally {
    await stop();
  }
});

test('snapshot names sort by time; prune keeps the newest', (t) => {
  assert.equal(snapshotName(new Date('2026-11-25T06:15:09.123Z')), 'paywalld-20261125T061509.123Z.db');
  const dir = tempDir(t);
  // Names of earlier versions (whole seconds) are pruned with the new ones.
  for (const name of ['T010000Z', 'T020000.500Z', 'T030000.001Z']) fs.writeFileSync(path.join(dir, `paywalld-20261125${name}.db`), '');
  assert.deepEqual(prune(dir, 1), ['paywalld-20261125T010000Z.db', 'paywalld-20261125T020000.500Z.db']);
  assert.deepEqual(fs.readdirSync(dir), ['paywalld-20261125T030000.001Z.db']);
});

test('intervals', () => {
  assert.equal(parseInterval('30m'), 1_800_000);
  assert.equal(parseInterval('6h'), 21_600_000);
  assert.equal(parseInterval('1d'), 86_400_000);
  assert.equal(parseInterval('90'), 90_000);
  for (const bad of ['', '0h', '-1h', '6 hours', '1.5h']) assert.equal(parseInterval(bad), undefined, bad);
});

test('snapshots taken at the same clock time get distinct names instead of failing', async (t) => {
  const { dir, file, written, log, logged } = liveDatabase(t);
  const backups = path.join(dir, 'backups');
  const frozen = new Date('2026-11-25T06:00:00.000Z');
  const stop = scheduleBackups(file, { dir: backups, everyMs: 5, keep: 10 }, log, () => frozen);
  try {
    await until(() => logged('backup written') >= 3);
  } finally {
    await stop();
  }
  assert.deepEqual(
    written.filter((l) => l.includes('"msg":"backup failed"')),
    [],
  );
  const files = fs.readdirSync(backups).sort();
  assert.ok(files.length >= 3);
  assert.deepEqual(files.slice(0, 3), ['paywalld-20261125T060000.000Z.db', 'paywalld-20261125T060000.001Z.db', 'paywalld-20261125T060000.002Z.db']);
});

/** The backup CLI writes to a 1 MiB tmpfs of its own (a private mount namespace), too small for the database. */
const FULL_TARGET = `
set -eu
mount -t tmpfs -o size=1m tmpfs "$MNT"
set +e
node "$DIST" backup "$MNT/copy.db" --db "$DB" >/dev/null 2>"$ERR"
echo "exit $?"
ls -A "$MNT"
`;

test('a backup that fails midway (disk full) removes its partial files', async (t) => {
  const dir = tempDir(t);
  const dbFile = path.join(dir, 'live.db');
  const db = openDatabase(dbFile);
  migrate(db);
  db.exec('CREATE TABLE ballast (pad TEXT)');
  const insert = db.prepare('INSERT INTO ballast VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 1000; i++) insert.run('x'.repeat(4000));
  })();
  db.close();
  const mnt = path.join(dir, 'mnt');
  fs.mkdirSync(mnt);
  const result = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'bash', '-c', FULL_TARGET], {
    env: { ...process.env, MNT: mnt, DIST, DB: dbFile, ERR: path.join(dir, 'err') },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  // exit 1 and an empty folder: no copy.db.partial-PID, no -journal left behind.
  assert.deepEqual(result.stdout.trim().split('\n'), ['exit 1']);
  assert.match(fs.readFileSync(path.join(dir, 'err'), 'utf8'), /full/i);
});

test('the temporary files of a backup whose process died are removed by the next backup into that folder', (t) => {
  const dir = tempDir(t);
  const dbFile = path.join(dir, 'live.db');
  const db = openDatabase(dbFile);
  migrate(db);
  db.close();
  const backups = path.join(dir, 'backups');
  fs.mkdirSync(backups);
  // A process that has ended: its pid names leftovers nobody is writing any more.
  const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  const deadPid = Number(gone.stdout.trim());
  const leftovers = [`paywalld-20261125T060000.000Z.db.partial-${deadPid}`, `paywalld-20261125T060000.000Z.db.partial-${deadPid}-journal`];
  // One of a live process (this one's parent stands in) is left alone.
  const live = `other.db.partial-${process.ppid}`;
  for (const name of [...leftovers, live, 'notes.txt']) fs.writeFileSync(path.join(backups, name), 'x');

  const result = spawnSync(process.execPath, [DIST, 'backup', path.join(backups, 'fresh.db'), '--db', dbFile], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(fs.readdirSync(backups).sort(), ['fresh.db', 'notes.txt', live].sort());
});

test('a tick that comes while a snapshot still runs is skipped, not queued', async (t) => {
  const dir = tempDir(t);
  const dbFile = path.join(dir, 'live.db');
  const db = openDatabase(dbFile);
  t.after(() => db.close());
  migrate(db);
  // 20 MB: a copy takes many 5 ms ticks.
  db.exec('CREATE TABLE ballast (pad TEXT)');
  const insert = db.prepare('INSERT INTO ballast VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 5000; i++) insert.run('x'.repeat(4000));
  })();
  const written: string[] = [];
  const log = new Logger('info', { sink: (text) => written.push(...text.trim().split('\n')) });
  const count = (msg: string) => written.filter((l) => l.includes(`"msg":"${msg}`)).length;
  const stop = scheduleBackups(dbFile, { dir: path.join(dir, 'backups'), everyMs: 5, keep: 2 }, log);
  await until(() => count('backup written') >= 2, 'two scheduled backups', 60_000);
  await stop();
  assert.ok(count('backup skipped') >= 1, 'ticks during a snapshot were skipped');
  assert.equal(count('backup failed'), 0);
  // Each written snapshot came from one tick: nothing piled up behind a slow one.
  assert.ok(fs.readdirSync(path.join(dir, 'backups')).every((f) => !f.includes('partial')));
});

test('paywalld backup writes the copy readable by its owner only, under the usual umask 022', (t) => {
  const { dir, file } = liveDatabase(t);
  const target = path.join(dir, 'manual', 'copy.db');
  const result = spawnSync('sh', ['-c', 'umask 022 && exec "$NODE" "$DIST" backup "$TARGET" --db "$DB"'], {
    env: { ...process.env, NODE: process.execPath, DIST, TARGET: target, DB: file },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(fs.statSync(target).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(target)).mode & 0o777, 0o700);
});
