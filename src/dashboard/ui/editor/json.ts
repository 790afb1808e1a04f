/**
 * The document as the visual editor holds it: plain JSON, never a typed
 * copy, so that fields the editor does not know (a newer server's, a
 * teammate's by hand) survive every edit. Edits copy only the objects on
 * the way to what they change and keep every object's key order: a key
 * that is replaced stays where it was, a new one goes last.
 */
import type { Path } from '../../../shared/pointer.ts';

export type { Path };
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path`, undefined where any step is missing (own keys only). */
export function getIn(value: Json | undefined, path: Path): Json | undefined {
  let current = value;
  for (const step of path) {
    if (Array.isArray(current) && typeof step === 'number') current = current[step];
    else if (isObject(current) && Object.hasOwn(current, step)) current = current[step];
    else return undefined;
  }
  return current;
}

/** `object` with `key` set (in place when present, else last) or, for undefined, removed. */
export function withKey(object: JsonObject, key: string, value: Json | undefined): JsonObject {
  if (value === undefined) {
    if (!Object.hasOwn(object, key)) return object;
    const copy: JsonObject = {};
    for (const [name, entry] of Object.entries(object)) if (name !== key) copy[name] = entry;
    return copy;
  }
  if (object[key] === value && Object.hasOwn(object, key)) return object;
  return { ...object, [key]: value };
}

/** `value` with the value at `path` replaced (undefined removes an object's key); objects are made on the way where missing. */
export function setIn(value: Json | undefined, path: Path, next: Json | undefined): Json {
  if (path.length === 0) return next ?? null;
  const [step, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value) && typeof step === 'number') {
    const copy = value.slice();
    const child = setIn(value[step], rest, next);
    if (next === undefined && rest.length === 0) copy.splice(step, 1);
    else copy[step] = child;
    return copy;
  }
  const object = isObject(value) ? value : {};
  const key = String(step);
  if (rest.length === 0) return withKey(object, key, next);
  // Removing below a key that is not there changes nothing (and makes no empty objects on the way).
  if (next === undefined && !Object.hasOwn(object, key)) return object;
  return withKey(object, key, setIn(object[key], rest, next));
}

/** `object` with `key` renamed to `name` in the same place. */
export function renameKey(object: JsonObject, key: string, name: string): JsonObject {
  const copy: JsonObject = {};
  for (const [entry, value] of Object.entries(object)) copy[entry === key ? name : entry] = value;
  return copy;
}

/** Equal as JSON: the same values, objects with the same keys (in any order). */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
  }
  return false;
}

export function pretty(document: Json): string {
  return JSON.stringify(document, null, 2);
}
