import * as v from 'valibot';
import { projectOf } from '../../http/auth.ts';
import { notModified } from '../../http/preconditions.ts';
import { ProblemError } from '../../http/problem.ts';
import { json } from '../../http/reply.ts';
import { queryReader, type RouteDefinition, route } from '../../http/route.ts';
import { RequestReader } from '../../paywalls/resolve/request.ts';
import { PlacementAnswerSchema, PlacementQuerySchema } from '../schema.ts';
import type { PlacementAnswers, PlacementRequest } from './answers.ts';
import { explainDecision } from './explain.ts';

/** The placement endpoint's query, read as /api/sdk/config's is (one scan, the schema's rules; RequestReader). */
const QUERY = new RequestReader(
  PlacementQuerySchema,
  'placement',
  (placementId, userId, platform, locales, localeParameter, attributes, explain): PlacementRequest => ({
    placementId,
    userId,
    platform,
    locales,
    localeParameter,
    attributes,
    explain,
  }),
);

const ExplainedAnswerSchema = v.intersect([
  PlacementAnswerSchema,
  v.object({
    explain: v.optional(
      v.pipe(
        v.record(v.string(), v.unknown()),
        v.description(
          'Only with explain=1 and a secret key: the attributes the rules saw (purchases.* facts included when tested), each rule tried with each clause, the holdout bucket, the opens counted against the cap, and the reason in a sentence',
        ),
      ),
    ),
  }),
]);

/**
 * GET /api/sdk/placement: which paywall (if any) to show at a moment of the
 * app, decided from memory (answers.ts) with /api/sdk/config's speed rules:
 * no SQL, and bodies served as serialised once. explain=1 (a secret key
 * only) adds why.
 */
export function placementAnswerApi(answers: PlacementAnswers): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/sdk/placement',
      query: queryReader(PlacementQuerySchema, (req) => QUERY.read(req.rawQuery, () => req.header('accept-language'))),
      doc: {
        operationId: 'getPlacementAnswer',
        errors: ['invalid_query', 'placement_not_found', 'user_required', 'insufficient_scope', 'database_unavailable'],
        summary: 'Decide a placement for one user: the paywall its rules show them (resolved as /api/sdk/config does), or why none',
        tag: 'sdk',
        auth: 'sdk',
        responses: {
          200: { description: 'show: the paywall; or why nothing is shown (with `explain` when explain=1 and a secret key)', schema: ExplainedAnswerSchema },
          304: { description: 'If-None-Match holds the ETag of what this request is answered' },
        },
      },
      handler: (req, { query: request }) => {
        const projectId = projectOf(req);
        if (request.explain) {
          if (req.principal?.scope !== 'secret') {
            throw new ProblemError('insufficient_scope', 'explain=1 needs a secret key: it shows the whole targeting setup, and sdk keys ship inside apps', {
              headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' },
            });
          }
          const decision = answers.decide(projectId, request);
          const body = JSON.parse(answers.serve(decision, request).body.toString('utf8')) as Record<string, unknown>;
          return json(200, { ...body, explain: explainDecision(decision, request.userId) }, { 'Cache-Control': 'no-store' });
        }
        const served = answers.answer(projectId, request);
        if (notModified(req.header('if-none-match'), served.etag)) return { status: 304, headers: served.notModifiedHeaders };
        return { status: 200, headers: served.headers, body: served.body };
      },
    }),
  ];
}
