import { changeOf, projectOf } from '../../http/auth.ts';
import { json } from '../../http/reply.ts';
import { type RouteDefinition, route } from '../../http/route.ts';
import { ClearedNamesSchema, PublicNamesSchema } from './schema.ts';
import type { EventNameService } from './service.ts';

/** What filled the budget of names sent without a secret key (docs/reference/events.md, "Names and their limits"): see it, and clear it. */
export function eventNamesApi(names: EventNameService): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/event-names',
      doc: {
        operationId: 'listEventNames',
        errors: ['database_unavailable'],
        summary: 'List the names (event types, paywall ids, variants, audiences) events sent without a secret key brought that no paywall declares',
        tag: 'events',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'the budgets they count in, and the names', schema: PublicNamesSchema } },
      },
      handler: async (req) => json(200, await names.list(projectOf(req)), { 'Cache-Control': 'no-store' }),
    }),
    route({
      method: 'DELETE',
      pattern: '/api/event-names',
      doc: {
        operationId: 'clearEventNames',
        errors: ['database_unavailable'],
        summary: 'Stop counting those names in their budgets: new names are taken again at once (the statistics keep them)',
        tag: 'events',
        auth: 'secret',
        access: 'administer',
        responses: { 200: { description: 'how many names no longer count', schema: ClearedNamesSchema } },
      },
      handler: async (req) => json(200, await names.clear(projectOf(req), changeOf(req))),
    }),
  ];
}
