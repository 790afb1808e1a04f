import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { snapshot } from './snapshot.ts';

export interface BackupSchedule {
  dir: string;
  everyMs: number;
  keep: number;
}

const NAME = /^paywalld-\d{8}T\d{6}Z\.db$/;

/** `paywalld-20261125T061500Z.db`: sorts by time, and says when it was taken. */
export function snapshotName(at: Date): string {
  return `paywalld-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}.db`;
}

/** Deletes the oldest scheduled snapshots beyond `keep`; other files in the folder are left alone. */
export function prune(dir: string, keep: number): string[] {
  const snapshots = fs.readdirSync(dir).filter((f) => NAME.test(f)).sort();
  const removed = snapshots.slice(0, Math.max(0, snapshots.length - keep));
  for (const file of removed) fs.rmSync(path.join(dir, file), { force: true });
  return removed;
}

/**
 * `serve --backup-dir DIR --backup-every 6h --backup-keep 14`: takes a
 * snapshot every interval (the first one interval after start) and keeps the
 * newest `keep`. A failed snapshot is logged and retried at the next tick; it
 * never stops the server. Returns a function that stops the schedule and
 * waits for a snapshot in progress.
 */
export function scheduleBackups(db: Database, schedule: BackupSchedule, log: Logger, now = () => new Date()): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const take = async () => {
    const target = path.join(schedule.dir, snapshotName(now()));
    try {
      const { pages } = await snapshot(db, target);
      const removed = prune(schedule.dir, schedule.keep);
      log.info('backup written', { file: target, pages, removed });
    } catch (error) {
      log.error('backup failed', { file: target, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const timer = setInterval(() => {
    running = running.then(take);
  }, schedule.everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** Parses `30m`, `6h`, `1d` (or plain seconds) into milliseconds; undefined when malformed. */
export function parseInterval(text: string): number | undefined {
  const match = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  const ms = Number(match[1]) * unit;
  return ms > 0 ? ms : undefined;
}
