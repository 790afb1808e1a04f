import { projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { resultsCsv } from './csv.ts';
import { ResultsQuerySchema, ResultsSchema } from './schema.ts';
import type { ExperimentResults } from './service.ts';

/** GET /api/paywalls/{id}/results: the results of one phase and segment, as JSON or as the CSV of the variants table. */
export function experimentsApi(experiments: ExperimentResults): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/paywalls/:id/results',
      query: ResultsQuerySchema,
      doc: {
        operationId: 'getPaywallResults',
        errors: ['invalid_query', 'paywall_not_found', 'phase_not_found', 'audience_not_found', 'stats_warming_up', 'database_unavailable'],
        summary:
          'Experiment results of one phase and segment: exposure, conversion, revenue, statistics against the control, SRM (docs/reference/experiments.md)',
        tag: 'experiments',
        auth: 'secret',
        access: 'view',
        responses: {
          200: { description: 'the results (format=csv: the variants table as text/csv)', schema: ResultsSchema },
        },
      },
      handler: async (req, { params: { id: paywallId }, query: { phase, audience = null, format = 'json', analysis } }) => {
        const results = await experiments.results(projectOf(req), paywallId, phase, audience, analysis);
        if (format === 'csv') {
          return {
            status: 200,
            headers: {
              'Content-Type': 'text/csv; charset=utf-8',
              'Content-Disposition': `attachment; filename="${paywallId}-phase-${results.phase.number}-results.csv"`,
              'Cache-Control': 'no-store',
            },
            body: resultsCsv(results),
          };
        }
        return json(200, results, { 'Cache-Control': 'no-store' });
      },
    }),
  ];
}
