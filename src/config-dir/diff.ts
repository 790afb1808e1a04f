/** A readable line diff of two JSON values, for plans: what a change does, not just that there is one. */
import { pointer } from '../shared/pointer.ts';

/** Keys sorted at every level: two values are the same configuration exactly when their canonical texts are equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** Lines of context kept around each change. */
const CONTEXT = 2;
/** Past this many line pairs the table is not built; the plan says the document changed instead. */
const MAX_CELLS = 16_000_000;

/** A line of the script, with its line number in the text it comes from (`before` for ' ' and '-', `after` for '+'). */
type Edit = { op: ' ' | '-' | '+'; line: string; at: number };

const KEYED = /^("(?:[^"\\]|\\.)*"): (.*)$/;

/**
 * The JSON pointer of the value each line of JSON.stringify(value, null, 2)
 * shows, so a hunk can say where in the document it is.
 */
function linePointers(lines: readonly string[]): string[] {
  const frames: { path: (string | number)[]; array: boolean; next: number }[] = [];
  return lines.map((raw) => {
    const line = raw.trim();
    const frame = frames.at(-1);
    if (!frame) {
      if (line === '{' || line === '[') frames.push({ path: [], array: line === '[', next: 0 });
      return '';
    }
    if (/^[}\]],?$/.test(line)) {
      frames.pop();
      return pointer(frame.path);
    }
    const keyed = frame.array ? null : KEYED.exec(line);
    const key = keyed ? (JSON.parse(keyed[1]!) as string) : frame.next++;
    const rest = keyed ? keyed[2]! : line;
    const path = [...frame.path, key];
    if (rest === '{' || rest === '[') frames.push({ path, array: rest === '[', next: 0 });
    return pointer(path);
  });
}

/** A line without its trailing comma: adding a key after `"a": 1` does not change that line. */
const bare = (line: string) => (line.endsWith(',') ? line.slice(0, -1) : line);

/** Longest-common-subsequence edit script of two line arrays, trailing commas ignored. */
function edits(lines: readonly string[], next: readonly string[]): Edit[] {
  const a = lines.map(bare);
  const b = next.map(bare);
  const n = a.length;
  const m = b.length;
  const table = new Uint32Array((n + 1) * (m + 1));
  const cell = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[cell(i, j)] = a[i] === b[j] ? table[cell(i + 1, j + 1)]! + 1 : Math.max(table[cell(i + 1, j)]!, table[cell(i, j + 1)]!);
    }
  }
  const out: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ op: ' ', line: next[j]!, at: i++ });
      j++;
    }
    // Removals before additions, as unified diffs show a replaced line.
    else if (i < n && (j === m || table[cell(i + 1, j)]! >= table[cell(i, j + 1)]!)) out.push({ op: '-', line: lines[i]!, at: i++ });
    else out.push({ op: '+', line: next[j]!, at: j++ });
  }
  return out;
}

/** The changed lines of `after` against `before` (canonical JSON), in hunks with a little context, each headed by where it is ("at /strings/en:"). */
export function jsonDiff(before: unknown, after: unknown): string[] {
  const a = canonicalJson(before).split('\n');
  const b = canonicalJson(after).split('\n');
  if ((a.length + 1) * (b.length + 1) > MAX_CELLS) return ['(too large to show line by line)'];
  const script = edits(a, b);
  const keep = script.map(() => false);
  script.forEach((edit, index) => {
    if (edit.op === ' ') return;
    for (let k = Math.max(0, index - CONTEXT); k <= Math.min(script.length - 1, index + CONTEXT); k++) keep[k] = true;
  });
  const pointers = { before: linePointers(a), after: linePointers(b) };
  const lines: string[] = [];
  let inHunk = false;
  script.forEach((edit, index) => {
    if (!keep[index]) {
      inHunk = false;
      return;
    }
    if (!inHunk) {
      let first = index;
      while (script[first]!.op === ' ') first++;
      const changed = script[first]!;
      lines.push(`at ${(changed.op === '+' ? pointers.after : pointers.before)[changed.at] || '/'}:`);
      inHunk = true;
    }
    lines.push(`${edit.op} ${edit.line}`);
  });
  return lines;
}
