import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../db/database.ts';
import { isRunning } from '../db/owner.ts';

/**
 * Pages copied per step; between steps the event loop runs, so a server taking
 * a scheduled snapshot keeps answering (a step of 4 MiB takes milliseconds).
 */
const PAGES_PER_STEP = 1024;

/** The files SQLite may leave beside a database it was writing. */
function withCompanions(file: string): string[] {
  return [file, `${file}-journal`, `${file}-wal`, `${file}-shm`];
}

/** A temporary copy (or its journal) and the process that was writing it. */
const PARTIAL = /\.partial-(\d+)(-journal|-wal|-shm)?$/;

/**
 * Removes the temporary files of snapshots whose process is gone (killed
 * mid-copy, or the machine stopped): the next snapshot into the same folder
 * cleans up after it. A copy still being written by a live process is left alone.
 */
function removeAbandoned(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir)) {
    const pid = PARTIAL.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !isRunning(Number(pid))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * Writes a consistent copy of the database at `dbPath` to `target` while
 * other connections keep writing, with SQLite's online backup API on a
 * connection of its own. That connection holds one read transaction for the
 * whole copy, so every step reads the same moment of the database: commits by
 * the event writer neither restart the copy (the default backup restarts on
 * every commit of another connection, and under steady ingestion never
 * finished) nor show up in it. The copy goes to a temporary name first and is
 * renamed into place when complete, so `target` is never half-written; a
 * failed copy removes its temporary files, and those of a copy whose process
 * died are removed by the next one. The copy is mode 0600. Refuses to overwrite `target`.
 */
export async function snapshot(dbPath: string, target: string): Promise<{ pages: number }> {
  if (fs.existsSync(target)) throw new Error(`${target} exists already; choose a new file name`);
  removeAbandoned(path.dirname(target));
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const temporary = `${target}.partial-${process.pid}`;
  const source = openDatabase(dbPath, { mustExist: true });
  try {
    // A snapshot holds every key hash and event: readable by its owner only. SQLite keeps the
    // mode of a file that exists (and gives its journal the same), so the copy starts as an empty 0600 file.
    fs.writeFileSync(temporary, '', { mode: 0o600, flag: 'wx' });
    // Whatever the umask: 0600 exactly (a umask can take the owner's write away).
    fs.chmodSync(temporary, 0o600);
    source.exec('BEGIN');
    // A deferred transaction starts reading only at its first read: this one fixes the moment copied.
    source.prepare('SELECT count(*) FROM sqlite_schema').pluck().get();
    const { totalPages } = await source.backup(temporary, { progress: () => PAGES_PER_STEP });
    source.exec('COMMIT');
    fs.renameSync(temporary, target);
    return { pages: totalPages };
  } catch (error) {
    for (const file of withCompanions(temporary)) fs.rmSync(file, { force: true });
    throw error;
  } finally {
    source.close();
  }
}
