import { type Path, pointer } from '../../shared/pointer.ts';

const MAX_TREE_DEPTH = 32;
const MAX_TREE_NODES = 2000;
/**
 * Free-form JSON (metadata, audience conditions) is stored, served and
 * evaluated by code that recurses, JSON.stringify among it, which overflows
 * the stack a few thousand levels down: a bound well under that, and well
 * over what a real document needs.
 */
const MAX_JSON_DEPTH = 32;

interface Entry {
  value: unknown;
  depth: number;
  parent: Entry | undefined;
  /** Path from the parent's node to this one, e.g. ["children", 2]. */
  step: Path;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Paths are built only for an error, so the walk itself stays linear in the node count.
function pathOf(entry: Entry): Path {
  const steps: Path[] = [];
  for (let at: Entry | undefined = entry; at; at = at.parent) steps.push(at.step);
  return steps.reverse().flat();
}

/**
 * Depth and size of one raw tree, walked without recursion: the node schema
 * recurses once per level, so a 100,000-level document must be turned away
 * here, before valibot sees it. A fallback sits one level below its node, as
 * it does in the JSON, and counts as a node. Every entry of a `children`
 * array counts, whatever it holds, so an oversized array is refused without
 * walking it.
 */
function treeErrors(root: unknown, rootPath: Path): { path: string; message: string }[] {
  const errors: { path: string; message: string }[] = [];
  const stack: Entry[] = [{ value: root, depth: 1, parent: undefined, step: rootPath }];
  let nodes = 1;
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    if (entry.depth > MAX_TREE_DEPTH) {
      // Only the first, in document order: one error says what to fix.
      if (errors.length === 0) {
        errors.push({
          path: pointer(pathOf(entry)),
          message: `The tree is nested deeper than ${MAX_TREE_DEPTH} levels`,
        });
      }
      continue;
    }
    const node = entry.value;
    if (!isObject(node)) continue;
    const children = Array.isArray(node.children) ? node.children : [];
    nodes += children.length + (node.fallback === undefined ? 0 : 1);
    if (nodes > MAX_TREE_NODES) {
      errors.push({ path: pointer(rootPath), message: `The tree has more than ${MAX_TREE_NODES} nodes` });
      break;
    }
    const depth = entry.depth + 1;
    // Pushed in reverse so that nodes pop in document order (children before the fallback).
    if (node.fallback !== undefined) stack.push({ value: node.fallback, depth, parent: entry, step: ['fallback'] });
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ value: children[i], depth, parent: entry, step: ['children', i] });
    }
  }
  return errors;
}

/** The first object or array nested deeper than MAX_JSON_DEPTH in a free-form JSON value, walked without recursion. */
function jsonDepthErrors(value: unknown, rootPath: Path): { path: string; message: string }[] {
  const stack: Entry[] = [{ value, depth: 1, parent: undefined, step: rootPath }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    if (typeof entry.value !== 'object' || entry.value === null) continue;
    if (entry.depth > MAX_JSON_DEPTH) {
      return [{ path: pointer(pathOf(entry)), message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }];
    }
    const depth = entry.depth + 1;
    const members = Object.entries(entry.value);
    for (let i = members.length - 1; i >= 0; i--) {
      const [key, member] = members[i]!;
      stack.push({ value: member, depth, parent: entry, step: [key] });
    }
  }
  return [];
}

/**
 * The document's depth and size limits, checked on the raw input before any
 * recursive code runs: the trees (the paywall's root and each variant's),
 * and the free-form metadata and audience conditions.
 */
export function limitErrors(input: unknown): { path: string; message: string }[] {
  if (!isObject(input)) return [];
  const errors = input.root === undefined ? [] : treeErrors(input.root, ['root']);
  if (input.metadata !== undefined) errors.push(...jsonDepthErrors(input.metadata, ['metadata']));
  if (Array.isArray(input.variants)) {
    input.variants.forEach((variant: unknown, i) => {
      if (!isObject(variant)) return;
      if (variant.root !== undefined) errors.push(...treeErrors(variant.root, ['variants', i, 'root']));
      if (variant.metadata !== undefined) errors.push(...jsonDepthErrors(variant.metadata, ['variants', i, 'metadata']));
    });
  }
  if (Array.isArray(input.audiences)) {
    input.audiences.forEach((audience: unknown, i) => {
      if (isObject(audience) && audience.when !== undefined) {
        errors.push(...jsonDepthErrors(audience.when, ['audiences', i, 'when']));
      }
    });
  }
  return errors;
}

/** A document's JSON text may take this many bytes at most, wherever it comes from (a request body, a file). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** The error of a document text over MAX_DOCUMENT_BYTES, or none. */
export function documentSizeErrors(bytes: number): { path: string; message: string }[] {
  return bytes > MAX_DOCUMENT_BYTES ? [{ path: '', message: `The document is larger than 1 MiB (${MAX_DOCUMENT_BYTES} bytes)` }] : [];
}
