/** A path into the document: object keys and array indexes, outermost first. */
export type Path = readonly (string | number)[];

/** RFC 6901 JSON pointer of a path ("" is the whole document). */
export function pointer(path: Path): string {
  let out = '';
  for (const key of path) out += '/' + String(key).replaceAll('~', '~0').replaceAll('/', '~1');
  return out;
}

/** The path of a valibot issue; its items carry the key or index of each step. */
export function issuePath(issue: { readonly path?: readonly { readonly key: unknown }[] | undefined }): Path {
  return (issue.path ?? []).map((item) => (typeof item.key === 'number' ? item.key : String(item.key)));
}

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
