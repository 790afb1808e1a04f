import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import type { EventWriter } from '../events/writer/writer.ts';
import { authenticate } from '../http/auth.ts';
import { issuesToErrors } from '../http/issues.ts';
import { json } from '../http/reply.ts';
import type { RouteDefinition } from '../http/route.ts';
import { PaywallManager } from '../paywalls/management.ts';
import { DomainError } from '../shared/errors.ts';
import { resultsCsv } from './csv.ts';
import { ResultsQuerySchema, ResultsSchema } from './schema.ts';
import { ExperimentResults } from './service.ts';

/** GET /api/paywalls/{id}/results: the results of one phase and segment, as JSON or as the CSV of the variants table. */
export function experimentsApi(ctx: AppContext, writer: EventWriter): RouteDefinition[] {
  const experiments = new ExperimentResults(writer, new PaywallManager(ctx.db, ctx.paywalls));
  return [
    {
      method: 'GET',
      pattern: '/api/paywalls/:id/results',
      doc: {
        summary: 'Experiment results of one phase and segment: exposure, conversion, revenue, statistics against the control, SRM (docs/experiments.md)',
        tag: 'experiments',
        auth: 'secret',
        query: ResultsQuerySchema,
        responses: {
          200: { description: 'the results (format=csv: the variants table as text/csv)', schema: ResultsSchema },
        },
      },
      handler: async (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'secret');
        const parsed = v.safeParse(ResultsQuerySchema, Object.fromEntries(req.query()));
        if (!parsed.success) {
          throw new DomainError('invalid_query', 'the query string is invalid; see errors', { errors: issuesToErrors(parsed.issues) });
        }
        const { phase, audience = null, format = 'json' } = parsed.output;
        const paywallId = req.params.id!;
        const results = await experiments.results(projectId, paywallId, phase, audience);
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
    },
  ];
}
