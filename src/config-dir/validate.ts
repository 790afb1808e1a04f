/**
 * Reads and validates a configuration directory offline, with the same code
 * the server runs on a write (validatePaywall, validatePlacement, the product
 * schema, the document size limit), so a directory that validates is one the
 * server accepts.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { type PaywallDeps, validatePaywall } from '../paywalls/document/index.ts';
import { documentSizeErrors } from '../paywalls/document/limits.ts';
import { storeCatalog } from '../paywalls/document/store-id-warnings.ts';
import { validatePlacement } from '../placements/validate.ts';
import { IdSchema } from '../shared/id.ts';
import { issuesToErrors } from '../shared/issues.ts';
import { isInside, readInside } from './inside.ts';
import { PAYWALLS_DIR, PLACEMENTS_DIR, PRODUCTS_FILE, ProductsFileSchema, paywallFile, placementFile, SETTINGS_FILE, SettingsFileSchema } from './layout.ts';
import type { DesiredPaywall, DesiredPlacement, DesiredState } from './state.ts';

/** One problem, at `file` (relative to the directory) and a JSON pointer into it ("" for the whole file). */
interface Diagnostic {
  file: string;
  path: string;
  message: string;
  /** Warnings carry the server's warning code (no_restore_button, …). */
  code?: string;
}

interface DirectoryValidation {
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** Present when there are no errors. */
  desired: DesiredState | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** "file:/pointer: message", or "file: message" for the whole file. */
export function formatDiagnostic(diagnostic: Diagnostic, kind: 'error' | 'warning'): string {
  const where = diagnostic.path === '' ? diagnostic.file : `${diagnostic.file}:${diagnostic.path}`;
  return `${where}: ${kind === 'warning' ? 'warning: ' : ''}${diagnostic.message}`;
}

/** JSON.parse's "at position N" as a line and column, which is what an editor jumps to. */
function describeJsonError(text: string, error: Error): string {
  const position = /position (\d+)/.exec(error.message);
  if (!position) return `Not valid JSON: ${error.message}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `Not valid JSON at line ${line}, column ${column}: ${error.message.replace(/ in JSON at position \d+.*$/s, '')}`;
}

type Read = { ok: true; value: unknown; bytes: number } | { ok: false };

function readJsonFile(dir: string, file: string, errors: Diagnostic[]): Read {
  const read = readInside(dir, file);
  if (!read.ok) {
    errors.push({ file, path: '', message: read.message });
    return { ok: false };
  }
  const { bytes } = read;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    errors.push({ file, path: '', message: 'Not valid UTF-8' });
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text), bytes: bytes.length };
  } catch (error) {
    errors.push({ file, path: '', message: describeJsonError(text, error as Error) });
    return { ok: false };
  }
}

function at(file: string, problems: readonly { path: string; message: string }[]): Diagnostic[] {
  return problems.map((problem) => ({ file, path: problem.path, message: problem.message }));
}

function duplicates(ids: readonly string[], listPointer: (index: number) => string, what: string): { path: string; message: string }[] {
  const seen = new Set<string>();
  const found: { path: string; message: string }[] = [];
  ids.forEach((id, index) => {
    if (seen.has(id)) found.push({ path: listPointer(index), message: `Duplicate ${what} id` });
    seen.add(id);
  });
  return found;
}

/** The ids products.json names, even when some entry is invalid: what paywall slots are checked against. */
function namedIds(value: unknown): Set<string> | undefined {
  const list = (value as { products?: unknown } | null)?.products;
  if (!Array.isArray(list)) return undefined;
  return new Set(list.map((entry) => (entry as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === 'string'));
}

type Catalog = { products: DesiredState['products'] | undefined; ids: Set<string> | undefined };

function readProducts(dir: string, errors: Diagnostic[]): Catalog {
  const read = readJsonFile(dir, PRODUCTS_FILE, errors);
  if (!read.ok) return { products: undefined, ids: undefined };
  const ids = namedIds(read.value);
  const parsed = v.safeParse(ProductsFileSchema, read.value);
  if (!parsed.success) {
    errors.push(...at(PRODUCTS_FILE, issuesToErrors(parsed.issues)));
    return { products: undefined, ids };
  }
  const products = parsed.output.products;
  const repeated = duplicates(
    products.map((p) => p.id),
    (i) => `/products/${i}/id`,
    'product',
  );
  errors.push(...at(PRODUCTS_FILE, repeated));
  if (repeated.length > 0) return { products: undefined, ids };
  return { products: products.map((p) => ({ id: p.id, name: p.name, store_ids: p.store_ids })).sort((a, b) => (a.id < b.id ? -1 : 1)), ids };
}

/** The files of `folder` (paywalls/, placements/), by id; its other entries are reported, not read. */
function idFiles(dir: string, folder: string, what: string, errors: Diagnostic[], warnings: Diagnostic[]): string[] {
  let entries: fs.Dirent[];
  try {
    if (!isInside(fs.realpathSync(dir), fs.realpathSync(path.join(dir, folder)))) {
      errors.push({ file: folder, path: '', message: 'A symbolic link that leads outside the directory: not read' });
      return [];
    }
    entries = fs.readdirSync(path.join(dir, folder), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    errors.push({ file: folder, path: '', message: `Cannot be read (${(error as NodeJS.ErrnoException).code})` });
    return [];
  }
  const ids: string[] = [];
  for (const entry of entries) {
    const file = `${folder}/${entry.name}`;
    if (!entry.name.endsWith('.json')) {
      warnings.push({ file, path: '', message: `Ignored: ${what} files end in .json` });
      continue;
    }
    const id = entry.name.slice(0, -'.json'.length);
    if (!v.is(IdSchema, id)) {
      errors.push({
        file,
        path: '',
        message: `The file name must be the ${what} id: 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit`,
      });
      continue;
    }
    ids.push(id);
  }
  return ids.sort();
}

function readPaywall(dir: string, id: string, deps: PaywallDeps, errors: Diagnostic[], warnings: Diagnostic[]): DesiredPaywall | undefined {
  const file = paywallFile(id);
  const read = readJsonFile(dir, file, errors);
  if (!read.ok) return undefined;
  const tooLarge = documentSizeErrors(read.bytes);
  if (tooLarge.length > 0) {
    errors.push(...at(file, tooLarge));
    return undefined;
  }
  const validation = validatePaywall(read.value, deps);
  if (!validation.ok) {
    errors.push(...at(file, validation.errors));
    return undefined;
  }
  for (const warning of validation.warnings) warnings.push({ file, path: warning.path, message: warning.message, code: warning.code });
  return { id, document: validation.value };
}

function readPlacement(
  dir: string,
  id: string,
  paywallLive: (paywallId: string) => boolean | undefined,
  errors: Diagnostic[],
  warnings: Diagnostic[],
): DesiredPlacement | undefined {
  const file = placementFile(id);
  const read = readJsonFile(dir, file, errors);
  if (!read.ok) return undefined;
  const validation = validatePlacement(read.value, { paywallLive });
  if (!validation.ok) {
    errors.push(...at(file, validation.errors));
    return undefined;
  }
  for (const warning of validation.warnings) warnings.push({ file, path: warning.path, message: warning.message, code: warning.code });
  return { id, document: validation.value };
}

function readLive(dir: string, paywallIds: readonly string[], errors: Diagnostic[]): Set<string> | undefined {
  if (!fs.existsSync(path.join(dir, SETTINGS_FILE))) return new Set(paywallIds);
  const read = readJsonFile(dir, SETTINGS_FILE, errors);
  if (!read.ok) return undefined;
  const parsed = v.safeParse(SettingsFileSchema, read.value);
  if (!parsed.success) {
    errors.push(...at(SETTINGS_FILE, issuesToErrors(parsed.issues)));
    return undefined;
  }
  const live = parsed.output.live;
  if (live === undefined) return new Set(paywallIds);
  const known = new Set(paywallIds);
  let ok = true;
  live.forEach((id, index) => {
    if (!known.has(id)) {
      errors.push({ file: SETTINGS_FILE, path: `/live/${index}`, message: `No paywall file ${paywallFile(id)}` });
      ok = false;
    }
  });
  const repeated = duplicates(live, (i) => `/live/${i}`, 'paywall');
  errors.push(...at(SETTINGS_FILE, repeated));
  return ok && repeated.length === 0 ? new Set(live) : undefined;
}

export function validateDirectory(dir: string): DirectoryValidation {
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    return { errors: [{ file: dir, path: '', message: 'Not a directory' }], warnings, desired: undefined };
  }
  const { products, ids: productIds } = readProducts(dir, errors);
  // With an unreadable catalog every slot would be reported too; its own errors say enough.
  const productExists = productIds ? (id: string) => productIds.has(id) : () => true;
  const ids = idFiles(dir, PAYWALLS_DIR, 'paywall', errors, warnings);
  const paywalls: DesiredPaywall[] = [];
  for (const id of ids) {
    const paywall = readPaywall(dir, id, { productExists, ...(products && { catalog: storeCatalog(products) }) }, errors, warnings);
    if (paywall) paywalls.push(paywall);
  }
  const live = readLive(dir, ids, errors);
  // A rule naming a paywall of the directory that will not be live is most likely a mistake; one the directory lacks, the target may have.
  const paywallLive = (id: string) => (ids.includes(id) ? (live?.has(id) ?? true) : undefined);
  const placements: DesiredPlacement[] = [];
  for (const id of idFiles(dir, PLACEMENTS_DIR, 'placement', errors, warnings)) {
    const placement = readPlacement(dir, id, paywallLive, errors, warnings);
    if (placement) placements.push(placement);
  }
  const desired = errors.length === 0 && products && live ? { products, paywalls, live, placements } : undefined;
  return { errors, warnings, desired };
}
