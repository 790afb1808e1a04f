const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * Orders pointers segment by segment, array indexes numerically, so that
 * `/variants/2` comes before `/variants/10` and a parent before its children.
 */
export function comparePointers(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    if (INDEX.test(x) && INDEX.test(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}
