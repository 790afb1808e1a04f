import { changeOf, projectOf } from '../http/auth.ts';
import { taggedJson } from '../http/preconditions.ts';
import { empty, json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { ProductListSchema, ProductSchema, ProductWriteSchema } from './schema.ts';
import { type ProductManager, productTag } from './service.ts';

export function productsApi(products: ProductManager): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/products',
      doc: {
        operationId: 'listProducts',
        errors: ['database_unavailable'],
        summary: "List the project's product catalog",
        tag: 'products',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the products, by id', schema: ProductListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req) => {
        const ifNoneMatch = req.header('if-none-match');
        return taggedJson(ifNoneMatch, { products: (await products.list(projectOf(req))).map((stored) => stored.product) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/products/:id',
      doc: {
        operationId: 'getProduct',
        errors: ['product_not_found', 'database_unavailable'],
        summary: 'Read a product',
        tag: 'products',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the product', schema: ProductSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        const stored = await products.get(projectOf(req), params.id);
        return taggedJson(ifNoneMatch, stored.product, productTag(stored));
      },
    }),
    route({
      method: 'PUT',
      pattern: '/api/products/:id',
      maxBody: 16 * 1024,
      body: ProductWriteSchema,
      doc: {
        operationId: 'putProduct',
        errors: ['invalid_id', 'validation_failed', 'precondition_failed', 'database_unavailable'],
        summary: 'Create or replace a product; live paywalls that use it serve the change at once',
        tag: 'products',
        auth: 'secret',
        access: 'edit',
        responses: {
          200: { description: 'the product was replaced', schema: ProductSchema },
          201: { description: 'the product was created', schema: ProductSchema },
        },
      },
      handler: async (req, { params: { id }, body: write }) => {
        const preconditions = { ifMatch: req.header('if-match'), ifNoneMatch: req.header('if-none-match') };
        const { stored, created } = await products.write(projectOf(req), id, write, preconditions, changeOf(req));
        const headers: Record<string, string> = { ETag: productTag(stored) };
        if (created) headers.Location = `/api/products/${encodeURIComponent(id)}`;
        return json(created ? 201 : 200, stored.product, headers);
      },
    }),
    route({
      method: 'DELETE',
      pattern: '/api/products/:id',
      doc: {
        operationId: 'deleteProduct',
        errors: ['product_not_found', 'product_in_use', 'precondition_failed', 'database_unavailable'],
        summary: 'Delete a product; refused while a live paywall puts it in a slot',
        tag: 'products',
        auth: 'secret',
        access: 'edit',
        responses: { 204: { description: 'deleted' } },
      },
      handler: async (req, { params }) => {
        await products.delete(projectOf(req), params.id, req.header('if-match'), changeOf(req));
        return empty(204);
      },
    }),
  ];
}
