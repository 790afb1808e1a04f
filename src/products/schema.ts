import * as v from 'valibot';
import { IdSchema } from '../shared/id.ts';
import { storableText } from '../shared/text.ts';

const StoreProductIdSchema = v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(255));

/** A product's id in each store; the resolve endpoint picks one by the request's platform. */
export const StoreIdsSchema = v.strictObject({
  app_store: v.optional(v.pipe(StoreProductIdSchema, v.description('App Store product identifier'))),
  play_store: v.optional(v.pipe(StoreProductIdSchema, v.description('Google Play product identifier'))),
  stripe: v.optional(v.pipe(StoreProductIdSchema, v.description('Stripe price or product id'))),
  web: v.optional(v.pipe(StoreProductIdSchema, v.description('Identifier for another web checkout'))),
});
export type StoreIds = v.InferOutput<typeof StoreIdsSchema>;

/** The body of PUT /api/products/{id}; the id comes from the path and may be repeated in the body. */
export const ProductWriteSchema = v.strictObject({
  id: v.optional(IdSchema),
  name: v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(200), storableText()),
  store_ids: v.optional(StoreIdsSchema, () => ({})),
});
export type ProductWrite = v.InferOutput<typeof ProductWriteSchema>;

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

export const ProductSchema = v.object({
  id: v.string(),
  name: v.string(),
  store_ids: StoreIdsSchema,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Product = v.InferOutput<typeof ProductSchema>;

export const ProductListSchema = v.object({ products: v.array(ProductSchema) });
export type ProductList = v.InferOutput<typeof ProductListSchema>;
