/** A readable line diff of two JSON values, for plans: what a change does, not just that there is one. */

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

type Edit = { op: ' ' | '-' | '+'; line: string };

/** Longest-common-subsequence edit script of two line arrays. */
function edits(a: readonly string[], b: readonly string[]): Edit[] {
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
    if (i < n && j < m && a[i] === b[j]) out.push({ op: ' ', line: a[i++]! }), j++;
    // Removals before additions, as unified diffs show a replaced line.
    else if (i < n && (j === m || table[cell(i + 1, j)]! >= table[cell(i, j + 1)]!)) out.push({ op: '-', line: a[i++]! });
    else out.push({ op: '+', line: b[j++]! });
  }
  return out;
}

/** The changed lines of `after` against `before` (canonical JSON), with a little context; "…" marks skipped lines. */
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
  const lines: string[] = [];
  let skipped = false;
  script.forEach((edit, index) => {
    if (!keep[index]) {
      if (!skipped) lines.push('  …');
      skipped = true;
      return;
    }
    skipped = false;
    lines.push(`${edit.op} ${edit.line}`);
  });
  return lines;
}
