/**
 * Version ordering as GrowthBook's $veq/$vgt/… operators define it
 * (packages/sdk-js/src/util.ts, spec 0.5.4): SemVer-like, but total over any input.
 */

/**
 * A string whose plain string order is version order: strips a leading `v`
 * and `+build` metadata, splits on `.` and `-`, left-pads numeric parts to
 * five characters ("9" < "10" then holds), and appends `~` (the largest
 * printable ASCII character) to a three-part version so that a release sorts
 * after its pre-releases. Anything that is not a non-empty string or a number counts as "0".
 */
export function paddedVersionString(input: unknown): string {
  const version = typeof input === 'number' ? String(input) : input;
  const text = version && typeof version === 'string' ? version : '0';
  const parts = text.replace(/(^v|\+.*$)/g, '').split(/[-.]/);
  if (parts.length === 3) parts.push('~');
  return parts.map((part) => (/^[0-9]+$/.test(part) ? part.padStart(5, ' ') : part)).join('-');
}

/** -1, 0 or 1 as version a sorts before, equal to or after version b. */
export function compareVersions(a: unknown, b: unknown): -1 | 0 | 1 {
  const left = paddedVersionString(a);
  const right = paddedVersionString(b);
  return left < right ? -1 : left > right ? 1 : 0;
}
