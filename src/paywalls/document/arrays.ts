import { type Path, pointer } from '../../shared/pointer.ts';

function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * valibot's object and record schemas accept a JSON array (it is an object
 * to JavaScript) and turn it into an object keyed "0", "1", … Comparing the
 * parsed output with the raw input finds each such place. Values that passed
 * through untouched (free-form metadata, conditions) are the very same
 * reference in both and are not entered.
 */
export function arraysGivenForObjects(input: unknown, output: unknown): { path: string; message: string }[] {
  const errors: { path: string; message: string }[] = [];
  const stack: { raw: unknown; parsed: unknown; path: Path }[] = [{ raw: input, parsed: output, path: [] }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { raw, parsed, path } = item;
    if (raw === parsed || !isObjectLike(raw) || !isObjectLike(parsed)) continue;
    if (Array.isArray(raw) && !Array.isArray(parsed)) {
      errors.push({ path: pointer(path), message: 'Expected an object, not an array' });
      continue;
    }
    for (const key of Object.keys(parsed)) {
      // Keys filled in by a default are not in the input.
      if (Object.hasOwn(raw, key)) stack.push({ raw: raw[key], parsed: parsed[key], path: [...path, key] });
    }
  }
  return errors;
}
