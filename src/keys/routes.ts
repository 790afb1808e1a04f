import { changeOf, projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { CreatedKeySchema, KeyCreateSchema, KeyInfoSchema, KeyListSchema } from './schema.ts';
import type { KeyService } from './service.ts';

export function keysApi(keys: KeyService): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/keys',
      doc: {
        operationId: 'listKeys',
        errors: ['database_unavailable'],
        summary: "List the project's API keys (never the keys themselves)",
        tag: 'keys',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'the keys', schema: KeyListSchema } },
      },
      handler: async (req) => json(200, { keys: await keys.list(projectOf(req)) }),
    }),
    route({
      method: 'POST',
      pattern: '/api/keys',
      maxBody: 4096,
      body: KeyCreateSchema,
      doc: {
        operationId: 'createKey',
        errors: ['validation_failed', 'too_many_keys', 'database_unavailable'],
        summary: 'Create an API key; the response is the only time the key is shown',
        tag: 'keys',
        auth: 'secret',
        access: 'administer',
        responses: { 201: { description: 'the new key', schema: CreatedKeySchema } },
      },
      handler: async (req, { body: { scope, name } }) => {
        return json(201, await keys.create(projectOf(req), scope, name, changeOf(req)), { 'Cache-Control': 'no-store' });
      },
    }),
    route({
      method: 'DELETE',
      pattern: '/api/keys/:id',
      doc: {
        operationId: 'revokeKey',
        errors: ['key_not_found', 'database_unavailable'],
        summary: 'Revoke an API key; it stops working at once',
        tag: 'keys',
        auth: 'secret',
        access: 'administer',
        responses: { 200: { description: 'the revoked key', schema: KeyInfoSchema } },
      },
      handler: async (req, { params }) => json(200, await keys.revoke(projectOf(req), params.id, changeOf(req))),
    }),
  ];
}
