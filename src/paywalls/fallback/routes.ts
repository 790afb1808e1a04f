import { projectOf } from '../../http/auth.ts';
import { notModified } from '../../http/preconditions.ts';
import { empty, rawJson } from '../../http/reply.ts';
import { queryReader, type RouteDefinition, route } from '../../http/route.ts';
import type { LivePaywalls } from '../live.ts';
import type { CompiledPaywall } from '../resolve/compiled.ts';
import type { FallbackBundles } from './cache.ts';
import type { FallbackPlacements } from './placements.ts';
import { fallbackRequest } from './request.ts';
import { FallbackBundleSchema, FallbackQuerySchema } from './schema.ts';

/** GET /api/sdk/fallback: the bundle an app keeps for when the server cannot be reached. */
export function fallbackApi(paywalls: LivePaywalls, bundles: FallbackBundles, placements: FallbackPlacements): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/sdk/fallback',
      // Repeated and comma-separated ids: read by hand (request.ts), documented by the schema.
      query: queryReader(FallbackQuerySchema, (req) => fallbackRequest(req.query())),
      doc: {
        operationId: 'getFallbackBundle',
        errors: ['invalid_query'],
        summary:
          'The offline fallback bundle: for each requested live paywall (and each paywall the requested placements name), its default variant in every locale it has, with its products; the placements',
        tag: 'sdk',
        auth: 'sdk',
        responses: {
          200: { description: 'the bundle; paywalls that are not live are left out', schema: FallbackBundleSchema },
          304: { description: 'If-None-Match holds the ETag of this bundle' },
        },
      },
      handler: (req, { query: { paywallIds, placementIds } }) => {
        const projectId = projectOf(req);
        const parts = placementIds.length === 0 ? undefined : placements.parts(projectId, placementIds);
        const live: CompiledPaywall[] = [];
        for (const id of new Set([...paywallIds, ...(parts ?? []).flatMap((part) => part.paywallIds)])) {
          const compiled = paywalls.get(projectId, id);
          if (compiled) live.push(compiled);
        }
        const etag = bundles.tag(projectId, live, parts);
        if (notModified(req.header('if-none-match'), etag)) return empty(304, { ETag: etag });
        return rawJson(200, bundles.body(live, parts), { ETag: etag });
      },
    }),
  ];
}
