/**
 * `serve` owns its database file: the event writer's derived state
 * (statistics, dedup indexes, project numbers) lives in one process's memory
 * and is checkpointed from there, so two servers on one file store retries
 * twice, disagree on users and break each other's checkpoints. The owner is
 * named in a lock file beside the database (`<db>-serve.lock`, holding its
 * pid), created atomically; a lock file whose pid is no longer running (the
 * owner was SIGKILLed, the machine lost power) is taken over. The CLI
 * commands that open the file beside a running server never take it.
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
 * Takes the database file for this process, or throws DatabaseInUseError
 * naming the running owner. Returns the release, which removes the lock file.
 */
export function claimDatabase(dbPath: string): () => void {
  const lockPath = lockPathOf(dbPath);
  if (held.has(lockPath)) throw new DatabaseInUseError(dbPath, process.pid);
  // serve creates the database, and its directory, when missing (as openDatabase does).
  fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
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
