/**
 * A configuration directory: what a project's products and paywalls are, as
 * files that can be reviewed in a pull request.
 *
 *   products.json          {"products": [{"id", "name", "store_ids"}, …]}   the catalog
 *   paywalls/<id>.json     one paywall, exactly the body of PUT /api/paywalls/{id}
 *   placements/<id>.json   one placement, exactly the body of PUT /api/placements/{id} (optional)
 *   paywalld.json          optional: {"live": ["<id>", …]}, the paywalls meant to be live
 *                          (without it, every paywall of the directory is)
 */
import * as v from 'valibot';
import { ProductWriteSchema } from '../products/schema.ts';
import { IdSchema } from '../shared/id.ts';

export const PRODUCTS_FILE = 'products.json';
export const PAYWALLS_DIR = 'paywalls';
export const SETTINGS_FILE = 'paywalld.json';
export const PLACEMENTS_DIR = 'placements';

/** The file of one paywall, relative to the directory, with `/` whatever the platform. */
export function paywallFile(id: string): string {
  return `${PAYWALLS_DIR}/${id}.json`;
}

/** The file of one placement, relative to the directory. */
export function placementFile(id: string): string {
  return `${PLACEMENTS_DIR}/${id}.json`;
}

/** One product of products.json: the body of PUT /api/products/{id}, with the id required. */
const ProductEntrySchema = v.strictObject({ ...ProductWriteSchema.entries, id: IdSchema });

export const ProductsFileSchema = v.strictObject({ products: v.array(ProductEntrySchema) });

export const SettingsFileSchema = v.strictObject({
  /** The paywalls `apply --publish` makes live; the others are written as drafts. */
  live: v.optional(v.array(IdSchema)),
});

/** How every file of the directory is written by export: stable, so an unchanged project exports identical bytes. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
