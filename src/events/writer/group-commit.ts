import type { EventRow } from '../event-row.ts';

/** Rows per transaction at most; a request is never split across transactions. */
const MAX_ROWS_PER_COMMIT = 20_000;

export interface QueuedWrite {
  id: number;
  rows: EventRow[];
  /** Per row, what the server knows of its names (analytics/name-budget.ts, MARK). */
  marks?: number[] | undefined;
}

/**
 * Takes the requests of the next transaction off the front of the queue:
 * whatever arrived while the previous one committed (group commit), up to
 * MAX_ROWS_PER_COMMIT rows, and always at least one request however large.
 */
export function takeGroup(queue: QueuedWrite[]): QueuedWrite[] {
  let rows = 0;
  let take = 0;
  while (take < queue.length && (take === 0 || rows + queue[take]!.rows.length <= MAX_ROWS_PER_COMMIT)) rows += queue[take++]!.rows.length;
  return queue.splice(0, take);
}

/** A group's rows and marks, per request, as the sinks take them. */
export function rowsAndMarks(group: readonly QueuedWrite[]): [EventRow[][], (number[] | undefined)[]] {
  return [group.map((request) => request.rows), group.map((request) => request.marks)];
}
