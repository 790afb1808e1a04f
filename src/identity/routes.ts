import { projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { IdentifyResultSchema, IdentifySchema } from './schema.ts';
import type { IdentityService } from './service.ts';

export function identityApi(identity: IdentityService): RouteDefinition[] {
  return [
    route({
      method: 'POST',
      pattern: '/api/sdk/identify',
      maxBody: 4 * 1024,
      body: IdentifySchema,
      doc: {
        operationId: 'identifyUser',
        errors: ['validation_failed', 'link_needs_secret_key', 'too_many_links', 'database_unavailable', 'ingestion_overloaded', 'ingestion_failed'],
        summary: 'Link an anonymous id to a signed-in user: results count both as one user from then on (the first link of an anonymous id wins)',
        tag: 'identity',
        auth: 'sdk',
        responses: { 200: { description: 'the link, new or as it was', schema: IdentifyResultSchema } },
      },
      handler: async (req, { body }) => json(200, await identity.identify(projectOf(req), body, req.principal?.scope === 'secret')),
    }),
  ];
}
