/**
 * `serve` owns its database file: the event writer's derived state
 * (statistics, dedup indexes, project numbers) lives in one process's memory
 * and is checkpointed from there, so two servers on one file store retries
 * twice, disagree on users and break each other's checkpoints. The owner is
 * named in a lock file beside the database (`<db>-serve.lock`, holding its
 * pid), created atomically; a lock file whose pid is no longer running (the
 * owner was SIGKILLed, the machine lost power) is taken over. The CLI
 * commands that open the file beside a running server never take it.
 *
 * The lock follows the real file, not the name given: a symbolic link
 * (to the file or to a directory on its path) is resolved, so `serve --db
 * link.db` finds the lock of the `a.db` it points to. A second name of the
 * same inode (a hard link) cannot be found from the first, and SQLite would
 * give each name its own WAL and shm (its documentation, "How To Corrupt",
 * 2.5): a database, WAL or shm file with more than one link is refused.
 */
import fs from 'node:fs';
import path from 'node:path';

export class DatabaseInUseError extends Error {
  constructor(
    readonly dbPath: string,
    readonly ownerPid: number,
  ) {
    super(`the database ${dbPath} is in use by another paywalld serve (pid ${ownerPid}); stop it first, or give this one another --db`);
    this.name = 'DatabaseInUseError';
  }
}

class DatabaseLinkedError extends Error {
  constructor(file: string, links: number) {
    super(
      `the database file ${file} has ${links} names (hard links): SQLite keeps a WAL beside each name, so two servers on two names would each miss the other's writes; serve it under one name only (remove the other links)`,
    );
    this.name = 'DatabaseLinkedError';
  }
}

/** Lock files taken by this process: a second server in the same process is refused too. */
const held = new Set<string>();

function lockPathOf(dbPath: string): string {
  return `${dbPath}-serve.lock`;
}

function ownerOf(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid is alive (EPERM: it runs, as another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The file a database path names, every symbolic link resolved: the file
 * itself when it exists, else its resolved directory and its name (serve
 * creates it there). A link to a missing file is refused: SQLite would
 * create the file at the link's target, under a name the lock cannot know.
 */
export function realDatabasePath(dbPath: string): string {
  try {
    return fs.realpathSync(dbPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (fs.lstatSync(dbPath, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new Error(`the database path ${dbPath} is a symbolic link to a missing file; name the file itself`);
  }
  const dir = path.dirname(path.resolve(dbPath));
  // serve creates the database, and its directory, when missing (as openDatabase does).
  fs.mkdirSync(dir, { recursive: true });
  return path.join(fs.realpathSync(dir), path.basename(dbPath));
}

/** Refuses a database whose file, WAL or shm has another name (a hard link): see the header. */
function refuseHardLinks(file: string): void {
  for (const name of [file, `${file}-wal`, `${file}-shm`]) {
    const links = fs.statSync(name, { throwIfNoEntry: false })?.nlink ?? 1;
    if (links > 1) throw new DatabaseLinkedError(name, links);
  }
}

/**
 * Takes the database file for this process, or throws DatabaseInUseError
 * naming the running owner (DatabaseLinkedError for a file with several
 * names), for the real file of `dbPath` (realDatabasePath). Returns the
 * release, which removes the lock file.
 */
export function claimDatabase(dbPath: string): () => void {
  const file = realDatabasePath(dbPath);
  const lockPath = lockPathOf(file);
  if (held.has(lockPath)) throw new DatabaseInUseError(dbPath, process.pid);
  refuseHardLinks(file);
  // Written under another name and linked into place: the lock file never exists without its pid.
  const draft = `${lockPath}.${process.pid}`;
  fs.writeFileSync(draft, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(draft, lockPath);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = ownerOf(lockPath);
      // Our own pid in a file we do not hold: left by an earlier life of this pid (a container's pid 1).
      if (owner !== undefined && owner !== process.pid && isRunning(owner)) throw new DatabaseInUseError(dbPath, owner);
      if (attempt === 2) throw new DatabaseInUseError(dbPath, owner ?? 0);
      fs.rmSync(lockPath, { force: true });
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  held.add(lockPath);
  return () => {
    if (!held.delete(lockPath)) return;
    if (ownerOf(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
  };
}
