import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { authenticate } from '../http/auth.ts';
import { parseWith, readJson } from '../http/json.ts';
import { entityTag, requireIfMatch, requireIfNoneMatch, taggedJson } from '../http/preconditions.ts';
import { ProblemError } from '../http/problem.ts';
import { empty, json } from '../http/reply.ts';
import type { Request } from '../http/request.ts';
import type { RouteDefinition } from '../http/route.ts';
import { IdSchema } from '../paywalls/document/primitives.ts';
import { ProductListSchema, ProductSchema, ProductWriteSchema } from './schema.ts';
import { ProductStore, type StoredProduct } from './store.ts';

function notFound(): ProblemError {
  return new ProblemError(404, 'product_not_found', 'no product with this id in the project');
}

function secret(ctx: AppContext, req: Request): string {
  return authenticate(req.header('authorization'), ctx.auth, 'secret').projectId;
}

export function productsApi(ctx: AppContext): RouteDefinition[] {
  const products = new ProductStore(ctx.db);
  const tagOf = (stored: StoredProduct | undefined) => stored && entityTag(stored.version);
  return [
    {
      method: 'GET',
      pattern: '/api/products',
      doc: {
        summary: "List the project's product catalog",
        tag: 'products',
        auth: 'secret',
        responses: { 200: { description: 'the products, by id', schema: ProductListSchema } },
      },
      handler: (req) => {
        const projectId = secret(ctx, req);
        return taggedJson(req.header('if-none-match'), { products: products.list(projectId) });
      },
    },
    {
      method: 'GET',
      pattern: '/api/products/:id',
      doc: {
        summary: 'Read a product',
        tag: 'products',
        auth: 'secret',
        responses: { 200: { description: 'the product', schema: ProductSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req) => {
        const projectId = secret(ctx, req);
        const stored = products.get(projectId, req.params.id!);
        if (!stored) throw notFound();
        return taggedJson(req.header('if-none-match'), stored.product, entityTag(stored.version));
      },
    },
    {
      method: 'PUT',
      pattern: '/api/products/:id',
      maxBody: 16 * 1024,
      doc: {
        summary: 'Create or replace a product; live paywalls that use it serve the change at once',
        tag: 'products',
        auth: 'secret',
        requestBody: ProductWriteSchema,
        responses: {
          200: { description: 'the product was replaced', schema: ProductSchema },
          201: { description: 'the product was created', schema: ProductSchema },
        },
      },
      handler: (req) => {
        const projectId = secret(ctx, req);
        const id = req.params.id!;
        if (!v.is(IdSchema, id)) {
          throw new ProblemError(422, 'invalid_id', 'a product id is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit');
        }
        const write = parseWith(ProductWriteSchema, readJson(req));
        if (write.id !== undefined && write.id !== id) {
          throw new ProblemError(422, 'validation_failed', 'the request document is invalid; see errors', {
            errors: [{ path: '/id', message: 'Must be the id in the path' }],
          });
        }
        const ifMatch = req.header('if-match');
        const ifNoneMatch = req.header('if-none-match');
        const { stored, created } = products.write(projectId, id, write, (current) => {
          requireIfMatch(ifMatch, tagOf(current));
          requireIfNoneMatch(ifNoneMatch, tagOf(current));
        });
        ctx.paywalls.refreshProduct(projectId, id);
        const headers: Record<string, string> = { ETag: entityTag(stored.version) };
        if (created) headers.Location = `/api/products/${encodeURIComponent(id)}`;
        return json(created ? 201 : 200, stored.product, headers);
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/products/:id',
      doc: {
        summary: 'Delete a product; refused while a live paywall puts it in a slot',
        tag: 'products',
        auth: 'secret',
        responses: { 204: { description: 'deleted' } },
      },
      handler: (req) => {
        const projectId = secret(ctx, req);
        const id = req.params.id!;
        const ifMatch = req.header('if-match');
        products.delete(projectId, id, (current) => {
          if (!current) throw notFound();
          requireIfMatch(ifMatch, tagOf(current));
          const users = ctx.paywalls.usingProduct(projectId, id);
          if (users.length > 0) {
            throw new ProblemError(409, 'product_in_use', `the product is in a slot of ${users.length} live paywall(s); publish revisions without it or archive them first`);
          }
        });
        ctx.paywalls.refreshProduct(projectId, id);
        return empty(204);
      },
    },
  ];
}
