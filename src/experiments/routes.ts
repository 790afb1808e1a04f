import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import type { EventWriter } from '../events/writer/writer.ts';
import { authenticate } from '../http/auth.ts';
import { issuesToErrors } from '../http/issues.ts';
import { json } from '../http/reply.ts';
import type { RouteDefinition } from '../http/route.ts';
import { type PhaseDesign, PhaseStore } from '../paywalls/phases.ts';
import { PaywallStore } from '../paywalls/store.ts';
import { DomainError } from '../shared/errors.ts';
import { resultsCsv } from './csv.ts';
import { buildResults, segmentDesign } from './results.ts';
import { ResultsQuerySchema, ResultsSchema } from './schema.ts';

/** GET /api/paywalls/{id}/results: asks the event writer for the fold of one phase and segment, then computes the statistics. */
export function experimentsApi(ctx: AppContext, writer: EventWriter): RouteDefinition[] {
  const phases = new PhaseStore(ctx.db);
  const paywalls = new PaywallStore(ctx.db);
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
        const { phase: number, audience = null, format = 'json' } = parsed.output;
        const paywallId = req.params.id!;
        if (!paywalls.get(projectId, paywallId)) throw new DomainError('paywall_not_found', 'no paywall with this id');
        const list = phases.phases(projectId, paywallId);
        const row = number === undefined ? list.at(-1) : list.find((candidate) => candidate.number === number);
        if (!row) {
          throw new DomainError('phase_not_found', list.length === 0 ? 'the paywall has no phase yet: publish it first' : 'the paywall has no phase with this number');
        }
        const segment = segmentDesign(JSON.parse(row.design) as PhaseDesign, audience);
        if (!segment) throw new DomainError('audience_not_found', 'this phase has no audience with this id');
        const fold = await writer.results(projectId, paywallId, audience, { from: row.started_at, to: row.ended_at, variants: segment.variants });
        const phase = {
          number: row.number,
          started_at: new Date(row.started_at).toISOString(),
          ended_at: row.ended_at === null ? null : new Date(row.ended_at).toISOString(),
          revision: row.revision,
          weights: segment.weights,
        };
        const results = buildResults(paywallId, audience, phase, segment, fold);
        if (format === 'csv') {
          return {
            status: 200,
            headers: {
              'Content-Type': 'text/csv; charset=utf-8',
              'Content-Disposition': `attachment; filename="${paywallId}-phase-${row.number}-results.csv"`,
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
