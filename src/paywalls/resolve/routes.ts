import { projectOf } from '../../http/auth.ts';
import { notModified } from '../../http/preconditions.ts';
import { ProblemError } from '../../http/problem.ts';
import { json } from '../../http/reply.ts';
import { queryReader, type RouteDefinition, route } from '../../http/route.ts';
import { DomainError } from '../../shared/errors.ts';
import type { LivePaywalls } from '../live.ts';
import type { ResolveExplainer } from './explain.ts';
import { ExplainedPaywallSchema } from './explain-schema.ts';
import { readResolveRequest } from './request.ts';
import { SdkConfigQuerySchema } from './schema.ts';
import { type UserFacts, withServerFacts } from './server-facts.ts';

/**
 * GET /api/sdk/config, the hot path: the key comes from the in-memory key
 * registry (checked by the edge), the paywall from the in-memory live
 * paywalls, the body from the compiled paywall's cache. No SQL, and on a
 * cache hit no serialisation. explain=1 (a secret key only) leaves the hot
 * path for the explainer.
 */
export function resolveApi(live: LivePaywalls, explainer: ResolveExplainer, facts: UserFacts): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/sdk/config',
      // The hot path scans the raw query once, checked against the schema's rules (request.ts).
      query: queryReader(SdkConfigQuerySchema, (req) => readResolveRequest(req.rawQuery, () => req.header('accept-language'))),
      doc: {
        operationId: 'resolvePaywall',
        errors: ['invalid_query', 'paywall_not_found', 'user_required', 'insufficient_scope', 'database_unavailable'],
        summary: 'Resolve the live revision of a paywall for one user: variant, locale, component tree and products',
        tag: 'sdk',
        auth: 'sdk',
        responses: {
          200: { description: 'the resolved paywall (with `explain` when explain=1 and a secret key)', schema: ExplainedPaywallSchema },
          304: { description: 'If-None-Match holds the ETag of what this request resolves to' },
        },
      },
      handler: (req, { query: request }) => {
        const projectId = projectOf(req);
        const paywall = live.get(projectId, request.paywallId);
        // Only a paywall whose audiences test purchases.* costs a lookup of its user's facts.
        const attributes = paywall?.usesFacts ? withServerFacts(request, projectId, facts, `paywall ${request.paywallId}`) : request.attributes;
        if (request.explain) {
          if (req.principal?.scope !== 'secret') {
            throw new ProblemError('insufficient_scope', 'explain=1 needs a secret key: it shows the whole targeting setup, and sdk keys ship inside apps', {
              headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' },
            });
          }
          // Off the hot path, which stays synchronous: only explain reads the store.
          return explainer.answer(projectId, { ...request, attributes }).then((body) => json(200, body, { 'Cache-Control': 'no-store' }));
        }
        // Unknown, unpublished, archived and another project's paywalls look the same.
        if (!paywall) throw new DomainError('paywall_not_found', 'no live paywall with this id in the project');
        const choice = paywall.choose(request.userId, attributes);
        const served = paywall.serve(choice, request.locales, request.platform);
        if (notModified(req.header('if-none-match'), served.etag)) return { status: 304, headers: served.notModifiedHeaders };
        return { status: 200, headers: served.headers, body: served.body };
      },
    }),
  ];
}
