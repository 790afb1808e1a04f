/**
 * Writes a target's configuration as a directory. Products by id, one file
 * per paywall with its newest revision as stored, the live ones listed in
 * paywalld.json, one file per placement that is not archived: an unchanged
 * project exports identical bytes every time.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { IdSchema } from '../shared/id.ts';
import { ID_RULE } from '../shared/id-pattern.ts';
import { type ConfigBackend, TargetError } from './backend.ts';
import { isInside } from './inside.ts';
import { formatJson, PAYWALLS_DIR, PLACEMENTS_DIR, PRODUCTS_FILE, paywallFile, placementFile, SETTINGS_FILE } from './layout.ts';
import { baseOf } from './plan.ts';

const STORE_KEYS = ['app_store', 'play_store', 'stripe', 'web'] as const;

interface ExportSummary {
  products: number;
  paywalls: number;
  live: number;
  placements: number;
  /** Paywall and placement files removed because the target has no such (unarchived) paywall or placement. */
  removed: string[];
  /** The tags of what was exported: what a later apply checks the target against. */
  base: Record<string, string>;
}

/**
 * The file `relative` of the directory whose real path is `root`, refused
 * when it would land outside it (a symbolic link on the way, or in its
 * place) or is not a regular file: export writes only inside DIR.
 */
function fileInside(root: string, relative: string): string {
  const file = path.resolve(root, relative);
  const parent = fs.realpathSync(path.dirname(file));
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if ((parent !== root && !isInside(root, parent)) || !isInside(root, file) || (stat && !stat.isFile())) {
    throw new TargetError(
      `${relative} of the export directory is not a regular file inside it (a symbolic link or a special file): refusing to write through it`,
      'unsafe_path',
    );
  }
  return file;
}

function writeIfChanged(file: string, text: string): void {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (existing !== text) fs.writeFileSync(file, text);
}

/** Removes the .json files of `folder` that were not just written: what the target no longer has. */
function removeStale(root: string, folder: string, written: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const name of fs.readdirSync(path.join(root, folder))) {
    if (name.endsWith('.json') && !written.has(name)) {
      // rm removes a link itself, never what it points to.
      fs.rmSync(path.join(root, folder, name));
      removed.push(`${folder}/${name}`);
    }
  }
  return removed;
}

export async function exportDirectory(backend: ConfigBackend, dir: string): Promise<ExportSummary> {
  const current = await backend.read();
  // A file name is made of each paywall id: an id the server's rule refuses (`../../package`) is refused before anything is written.
  for (const { id } of [...current.paywalls, ...current.products, ...current.placements]) {
    if (!v.is(IdSchema, id))
      throw new TargetError(`${backend.target} lists the id ${JSON.stringify(id)}, which is not ${ID_RULE}: nothing was exported`, 'invalid_id');
  }
  fs.mkdirSync(path.join(dir, PAYWALLS_DIR), { recursive: true });
  const root = fs.realpathSync(dir);
  const placements = current.placements.filter((p) => p.status === 'active');
  // placements/ only when there are some (or were: its stale files go): a project without them exports what it always did.
  const withPlacements = placements.length > 0 || fs.existsSync(path.join(dir, PLACEMENTS_DIR));
  if (withPlacements) fs.mkdirSync(path.join(dir, PLACEMENTS_DIR), { recursive: true });
  for (const folder of withPlacements ? [PAYWALLS_DIR, PLACEMENTS_DIR] : [PAYWALLS_DIR]) {
    if (!isInside(root, fs.realpathSync(path.join(dir, folder)))) {
      throw new TargetError(`${folder} of the export directory leads outside it: refusing to write through it`, 'unsafe_path');
    }
  }
  const products = current.products.map((p) => ({
    id: p.id,
    name: p.name,
    // A fixed key order, whatever order the target answered in.
    store_ids: Object.fromEntries(STORE_KEYS.filter((key) => p.store_ids[key] !== undefined).map((key) => [key, p.store_ids[key]])),
  }));
  writeIfChanged(fileInside(root, PRODUCTS_FILE), formatJson({ products }));
  const served = current.paywalls.filter((p) => p.status !== 'archived');
  const written = new Set<string>();
  for (const paywall of served) {
    const file = paywallFile(paywall.id);
    writeIfChanged(fileInside(root, file), formatJson(paywall.document));
    written.add(`${paywall.id}.json`);
  }
  const removed = removeStale(root, PAYWALLS_DIR, written);
  if (withPlacements) {
    const placementFiles = new Set<string>();
    for (const placement of placements) {
      writeIfChanged(fileInside(root, placementFile(placement.id)), formatJson(placement.document));
      placementFiles.add(`${placement.id}.json`);
    }
    removed.push(...removeStale(root, PLACEMENTS_DIR, placementFiles));
  }
  const live = served.filter((p) => p.status === 'live').map((p) => p.id);
  writeIfChanged(fileInside(root, SETTINGS_FILE), formatJson({ live }));
  return { products: products.length, paywalls: served.length, live: live.length, placements: placements.length, removed, base: baseOf(current) };
}
