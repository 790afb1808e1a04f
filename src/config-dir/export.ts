/**
 * Writes a target's configuration as a directory. Products by id, one file
 * per paywall with its newest revision as stored, the live ones listed in
 * paywalld.json: an unchanged project exports identical bytes every time.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ConfigBackend } from './backend.ts';
import { formatJson, PAYWALLS_DIR, PRODUCTS_FILE, paywallFile, SETTINGS_FILE } from './layout.ts';

const STORE_KEYS = ['app_store', 'play_store', 'stripe', 'web'] as const;

export interface ExportSummary {
  products: number;
  paywalls: number;
  live: number;
  /** Paywall files removed because the target has no such (unarchived) paywall. */
  removed: string[];
}

function writeIfChanged(file: string, text: string): void {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (existing !== text) fs.writeFileSync(file, text);
}

export async function exportDirectory(backend: ConfigBackend, dir: string): Promise<ExportSummary> {
  const current = await backend.read();
  fs.mkdirSync(path.join(dir, PAYWALLS_DIR), { recursive: true });
  const products = current.products.map((p) => ({
    id: p.id,
    name: p.name,
    // A fixed key order, whatever order the target answered in.
    store_ids: Object.fromEntries(STORE_KEYS.filter((key) => p.store_ids[key] !== undefined).map((key) => [key, p.store_ids[key]])),
  }));
  writeIfChanged(path.join(dir, PRODUCTS_FILE), formatJson({ products }));
  const served = current.paywalls.filter((p) => p.status !== 'archived');
  const written = new Set<string>();
  for (const paywall of served) {
    const file = paywallFile(paywall.id);
    writeIfChanged(path.join(dir, file), formatJson(paywall.document));
    written.add(`${paywall.id}.json`);
  }
  const removed: string[] = [];
  for (const name of fs.readdirSync(path.join(dir, PAYWALLS_DIR))) {
    if (name.endsWith('.json') && !written.has(name)) {
      fs.rmSync(path.join(dir, PAYWALLS_DIR, name));
      removed.push(`${PAYWALLS_DIR}/${name}`);
    }
  }
  const live = served.filter((p) => p.status === 'live').map((p) => p.id);
  writeIfChanged(path.join(dir, SETTINGS_FILE), formatJson({ live }));
  return { products: products.length, paywalls: served.length, live: live.length, removed };
}
