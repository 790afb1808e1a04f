import type { AppContext } from '../context.ts';
import { authenticate } from '../http/auth.ts';
import { parseWith, readJson } from '../http/json.ts';
import { ProblemError } from '../http/problem.ts';
import { json } from '../http/reply.ts';
import type { RouteDefinition } from '../http/route.ts';
import { CreatedKeySchema, KeyCreateSchema, KeyInfoSchema, KeyListSchema } from './schema.ts';
import { keyInfo } from './store.ts';

export function keysApi(ctx: AppContext): RouteDefinition[] {
  return [
    {
      method: 'GET',
      pattern: '/api/keys',
      doc: {
        summary: "List the project's API keys (never the keys themselves)",
        tag: 'keys',
        auth: 'secret',
        responses: { 200: { description: 'the keys', schema: KeyListSchema } },
      },
      handler: (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'secret');
        return json(200, { keys: ctx.keys.list(projectId).map(keyInfo) });
      },
    },
    {
      method: 'POST',
      pattern: '/api/keys',
      maxBody: 4096,
      doc: {
        summary: 'Create an API key; the response is the only time the key is shown',
        tag: 'keys',
        auth: 'secret',
        requestBody: KeyCreateSchema,
        responses: { 201: { description: 'the new key', schema: CreatedKeySchema } },
      },
      handler: (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'secret');
        const { scope } = parseWith(KeyCreateSchema, readJson(req));
        const created = ctx.keys.create(projectId, scope);
        ctx.auth.reload();
        return json(201, created, { 'Cache-Control': 'no-store' });
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/keys/:id',
      doc: {
        summary: 'Revoke an API key; it stops working at once',
        tag: 'keys',
        auth: 'secret',
        responses: { 200: { description: 'the revoked key', schema: KeyInfoSchema } },
      },
      handler: (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'secret');
        const existing = ctx.keys.get(req.params.id!);
        // Another project's key is reported exactly like a missing one.
        if (!existing || existing.project_id !== projectId) throw new ProblemError(404, 'key_not_found', 'no API key with that id');
        const revoked = ctx.keys.revokeKey(existing.id);
        ctx.auth.reload();
        return json(200, keyInfo(revoked));
      },
    },
  ];
}
