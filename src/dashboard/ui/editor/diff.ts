/** A line diff (longest common subsequence) between two texts, for revisions and conflicting edits. */
interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

/** Past this many cells the table would be too slow for a browser tab; the diff then lists both sides whole. */
const MAX_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Common head and tail first: edits are usually small and local.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: ' ', text }));
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    out.push(...midA.map((text) => ({ op: '-' as const, text })), ...midB.map((text) => ({ op: '+' as const, text })));
  } else {
    const n = midA.length;
    const m = midB.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * (m + 1) + j] =
          midA[i] === midB[j] ? table[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ op: ' ', text: midA[i++]! });
        j++;
      } else if (i < n && (j === m || table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!)) {
        // On a tie the removed line goes first: a changed line reads − old, then + new, as in a unified diff.
        out.push({ op: '-', text: midA[i++]! });
      } else {
        out.push({ op: '+', text: midB[j++]! });
      }
    }
  }
  out.push(...a.slice(a.length - tail).map((text) => ({ op: ' ' as const, text })));
  return out;
}

/** The diff with unchanged runs longer than 2 × context folded, as a unified diff shows it. */
export function folded(lines: DiffLine[], context = 3): (DiffLine | { op: '…'; count: number })[] {
  const keep = lines.map((line) => line.op !== ' ');
  const near = lines.map((_, i) => {
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) if (keep[k]) return true;
    return false;
  });
  const out: (DiffLine | { op: '…'; count: number })[] = [];
  let skipped = 0;
  lines.forEach((line, i) => {
    if (near[i]) {
      if (skipped > 0) out.push({ op: '…', count: skipped });
      skipped = 0;
      out.push(line);
    } else {
      skipped++;
    }
  });
  if (skipped > 0) out.push({ op: '…', count: skipped });
  return out;
}
