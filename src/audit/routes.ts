import { projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { AuditPageSchema, AuditQuerySchema } from './schema.ts';
import type { AuditLog } from './service.ts';

export function auditApi(audit: AuditLog): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/projects/:project/audit-log',
      query: AuditQuerySchema,
      doc: {
        operationId: 'listAuditLog',
        errors: ['invalid_query', 'database_unavailable'],
        summary: "The project's audit log, newest first: every change, who made it and from where (docs/guide/teams.md)",
        tag: 'teams',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'a page of entries', schema: AuditPageSchema } },
      },
      // The edge has checked that the key, or the signed-in person's role, is of the project in the path.
      handler: async (req, { query }) => json(200, await audit.page(projectOf(req), query), { 'Cache-Control': 'no-store' }),
    }),
  ];
}
