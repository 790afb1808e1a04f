/**
 * Undo and redo over whole documents: every edit, of any panel or of the
 * JSON, is a new present. Documents share what an edit did not touch, so a
 * step costs the objects it copied. Edits of one field in a row (typing a
 * text) are one step: an edit with the same `group` as the one before,
 * within GROUP_MS of it, replaces the present instead of adding a step.
 */
const LIMIT = 200;
const GROUP_MS = 1500;

export interface History<T> {
  past: readonly T[];
  present: T;
  future: readonly T[];
  /** The group and time of the last edit, for grouping the next one. */
  last: { group: string; at: number } | null;
}

export function startHistory<T>(present: T): History<T> {
  return { past: [], present, future: [], last: null };
}

export function record<T>(history: History<T>, next: T, group: string | null = null, now = Date.now()): History<T> {
  if (next === history.present) return history;
  const grouped = group !== null && history.last?.group === group && now - history.last.at < GROUP_MS;
  return {
    past: grouped ? history.past : [...history.past, history.present].slice(-LIMIT),
    present: next,
    future: [],
    last: group === null ? null : { group, at: now },
  };
}

export function undo<T>(history: History<T>): History<T> {
  const previous = history.past.at(-1);
  if (previous === undefined) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future], last: null };
}

export function redo<T>(history: History<T>): History<T> {
  const [next, ...rest] = history.future;
  if (next === undefined) return history;
  return { past: [...history.past, history.present], present: next, future: rest, last: null };
}
