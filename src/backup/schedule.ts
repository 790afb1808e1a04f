import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.ts';
import { snapshot } from './snapshot.ts';

export interface BackupSchedule {
  dir: string;
  everyMs: number;
  keep: number;
}

/** Scheduled snapshots, with milliseconds (`.123`) since this version; older ones have whole seconds. */
const NAME = /^paywalld-\d{8}T\d{6}(\.\d{3})?Z\.db$/;

/** `paywalld-20261125T061500.123Z.db`: sorts by time, and says when it was taken. */
export function snapshotName(at: Date): string {
  return `paywalld-${at.toISOString().replace(/[-:]/g, '')}.db`;
}

/** The name for a snapshot taken at `at`, moved on by a millisecond while a file has it (a clock set back). */
function freeName(dir: string, at: Date): string {
  let ms = at.getTime();
  while (fs.existsSync(path.join(dir, snapshotName(new Date(ms))))) ms += 1;
  return path.join(dir, snapshotName(new Date(ms)));
}

/** Deletes the oldest scheduled snapshots beyond `keep`; other files in the folder are left alone. */
export function prune(dir: string, keep: number): string[] {
  const snapshots = fs
    .readdirSync(dir)
    .filter((f) => NAME.test(f))
    .sort();
  const removed = snapshots.slice(0, Math.max(0, snapshots.length - keep));
  for (const file of removed) fs.rmSync(path.join(dir, file), { force: true });
  return removed;
}

/**
 * `serve --backup-dir DIR --backup-every 6h --backup-keep 14`: takes a
 * snapshot every interval (the first one interval after start) and keeps the
 * newest `keep`. A tick that comes while the previous snapshot still runs is
 * skipped (and logged), so slow snapshots never queue up. A failed snapshot is
 * logged and tried again at the next tick; it never stops the server.
 * Returns a function that stops the schedule and waits for a snapshot in
 * progress.
 */
export function scheduleBackups(dbPath: string, schedule: BackupSchedule, log: Logger, now = () => new Date()): () => Promise<void> {
  let running: Promise<void> | undefined;
  const take = async () => {
    const target = freeName(schedule.dir, now());
    try {
      const { pages } = await snapshot(dbPath, target);
      const removed = prune(schedule.dir, schedule.keep);
      log.info('backup written', { file: target, pages, removed });
    } catch (error) {
      log.error('backup failed', { file: target, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const timer = setInterval(() => {
    if (running) {
      log.warn('backup skipped: the previous one is still running', { dir: schedule.dir });
      return;
    }
    running = take().finally(() => (running = undefined));
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
