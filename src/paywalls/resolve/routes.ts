import type { AppContext } from '../../context.ts';
import { authenticate } from '../../http/auth.ts';
import { notModified } from '../../http/preconditions.ts';
import { ProblemError } from '../../http/problem.ts';
import type { RouteDefinition } from '../../http/route.ts';
import { PaywallStore } from '../store.ts';
import { explainedResolve } from './explain.ts';
import { ExplainedPaywallSchema } from './explain-schema.ts';
import { readResolveRequest } from './request.ts';
import { SdkConfigQuerySchema } from './schema.ts';

/**
 * GET /api/sdk/config, the hot path: the key comes from the in-memory key
 * registry, the paywall from the in-memory live paywalls, the body from the
 * compiled paywall's cache. No SQL, and on a cache hit no serialisation.
 */
export function resolveApi(ctx: AppContext): RouteDefinition[] {
  const revisions = new PaywallStore(ctx.db);
  ctx.metrics.gauge('paywalld_paywalls_compiled', 'Live paywall revisions compiled in memory for the resolve endpoint.', () => ctx.paywalls.compiledCount());
  return [
    {
      method: 'GET',
      pattern: '/api/sdk/config',
      doc: {
        summary: 'Resolve the live revision of a paywall for one user: variant, locale, component tree and products',
        tag: 'sdk',
        auth: 'sdk',
        query: SdkConfigQuerySchema,
        responses: {
          200: { description: 'the resolved paywall (with `explain` when explain=1 and a secret key)', schema: ExplainedPaywallSchema },
          304: { description: 'If-None-Match holds the ETag of what this request resolves to' },
        },
      },
      handler: (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'sdk');
        const request = readResolveRequest(req.rawQuery, () => req.header('accept-language'));
        if (request.explain) return explainedResolve(ctx, revisions, req, request);
        const paywall = ctx.paywalls.get(projectId, request.paywallId);
        // Unknown, unpublished, archived and another project's paywalls look the same.
        if (!paywall) throw new ProblemError(404, 'paywall_not_found', 'no live paywall with this id in the project');
        const choice = paywall.choose(request.userId, request.attributes);
        const served = paywall.serve(choice, request.locales, request.platform);
        if (notModified(req.header('if-none-match'), served.etag)) return { status: 304, headers: served.notModifiedHeaders };
        return { status: 200, headers: served.headers, body: served.body };
      },
    },
  ];
}
