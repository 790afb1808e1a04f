import fs from 'node:fs';
import type { MetricsRegistry } from './registry.ts';

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Process gauges, read at scrape time. */
export function processMetrics(registry: MetricsRegistry): void {
  const started = Date.now() / 1000 - process.uptime();
  registry.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', () => started);
  registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss());
  registry.gauge('nodejs_heap_used_bytes', 'V8 heap in use, in bytes.', () => process.memoryUsage().heapUsed);
  registry.gauge(
    'process_cpu_seconds_total',
    'User and system CPU time spent, in seconds.',
    () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    },
    'counter',
  );
}

/** The SQLite database's size on disk, read at scrape time. */
export function sqliteFileMetrics(registry: MetricsRegistry, dbPath: string): void {
  registry.gauge('paywalld_sqlite_file_bytes', 'Size of the SQLite database file and its write-ahead log, in bytes.', () => [
    [{ file: 'db' }, fileSize(dbPath)],
    [{ file: 'wal' }, fileSize(`${dbPath}-wal`)],
  ]);
}
