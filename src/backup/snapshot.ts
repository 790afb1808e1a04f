import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/database.ts';

/**
 * Writes a consistent copy of `db` to `target` with SQLite's online backup
 * API, which copies the database as of one moment (write-ahead log included)
 * while other connections keep writing. The copy goes to a temporary name
 * first and is renamed into place when complete, so `target` is never
 * half-written. Refuses to overwrite an existing file.
 */
export async function snapshot(db: Database, target: string): Promise<{ pages: number }> {
  if (fs.existsSync(target)) throw new Error(`${target} exists already; choose a new file name`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.partial-${process.pid}`;
  try {
    const { totalPages } = await db.backup(temporary);
    fs.renameSync(temporary, target);
    return { pages: totalPages };
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
