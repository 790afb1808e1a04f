/**
 * JSON pointers (RFC 6901): how every error and warning names the place in a
 * document it is about. A leaf module: the domain and the edge both use it.
 */

/** A path into a JSON document: object keys and array indexes, outermost first. */
export type Path = readonly (string | number)[];

/** RFC 6901 JSON pointer of a path ("" is the whole document). */
export function pointer(path: Path): string {
  let out = '';
  for (const key of path) out += `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  return out;
}
