import os from 'node:os';

/**
 * The writer's scheduling priority (nice value; the server thread keeps 0).
 * Where the writer and the request thread share a core, the kernel then lets
 * requests go first, so resolve latency does not pay for ingestion and the
 * fold; with a core to itself the writer loses nothing. Not 19, although
 * resolve does better while ingesting on a shared core: the writer holds
 * SQLite's write lock (PostgreSQL's events lock) during its transactions, and
 * starved that far on a busy machine it kept the request thread's own writes
 * waiting past their bound (bench/notes/first-targets.md, "resolve while ingesting", has the
 * figures).
 */
const WRITER_NICE = 10;

/** Lowers the calling thread's priority: on Linux, setpriority on "0" applies to the calling thread only. */
export function lowerWriterPriority(): void {
  try {
    os.setPriority(0, WRITER_NICE);
  } catch {
    // Where threads cannot be re-prioritised, the writer simply keeps the server's priority.
  }
}
