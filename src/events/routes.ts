import { projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { parseEnvelope } from './ingest.ts';
import { EventBatchSchema, ExportedEventSchema, ExportQuerySchema, IngestResultSchema, StatsQuerySchema, StatsSchema } from './schema.ts';
import type { EventService } from './service.ts';

/** Largest request body of an event batch; the edge answers 413 past it and reads no further. */
const MAX_BATCH_BYTES = 1024 * 1024;

interface EventsApiOptions {
  /** Refuse event batches that carry no API key (keyless batches are attributed by paywall id otherwise). */
  requireKey: boolean;
}

export function eventsApi(events: EventService, options: EventsApiOptions): RouteDefinition[] {
  return [
    route({
      method: 'POST',
      pattern: '/api/sdk/events',
      maxBody: MAX_BATCH_BYTES,
      // The envelope is checked here (invalid_batch, too_many_events); each event by the service, which rejects it alone.
      body: { schema: EventBatchSchema, read: parseEnvelope },
      doc: {
        operationId: 'sendEvents',
        errors: ['invalid_batch', 'too_many_events', 'ingestion_overloaded', 'database_unavailable', 'ingestion_failed'],
        summary: 'Send a batch of analytics events; answered once the accepted events are committed',
        tag: 'events',
        auth: 'sdk',
        keyOptional: !options.requireKey,
        responses: {
          200: { description: 'done: do not retry (rejected events are listed by index)', schema: IngestResultSchema },
        },
      },
      handler: async (req, { body: batch }) => json(200, await events.ingest(batch, req.principal?.projectId, req.principal?.scope === 'secret')),
    }),
    route({
      method: 'GET',
      pattern: '/api/paywalls/:id/stats',
      query: StatsQuerySchema,
      doc: {
        operationId: 'getPaywallStats',
        errors: ['invalid_query', 'invalid_range', 'stats_warming_up'],
        summary: 'Per-variant statistics of a paywall per UTC day and in total (default: the last 30 days)',
        tag: 'events',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the statistics', schema: StatsSchema } },
      },
      handler: async (req, { params, query: range }) => {
        return json(200, await events.stats(projectOf(req), params.id, range), { 'Cache-Control': 'no-store' });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/events',
      query: ExportQuerySchema,
      doc: {
        operationId: 'exportEvents',
        errors: ['invalid_query', 'invalid_range', 'database_unavailable'],
        summary: "Export the project's raw events as NDJSON, oldest first (default: every stored event)",
        tag: 'events',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'one event per line', mediaType: 'application/x-ndjson', schema: ExportedEventSchema } },
      },
      handler: (req, { query: { paywallId, ...range } }) => {
        return {
          status: 200,
          headers: { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' },
          body: events.export(projectOf(req), paywallId, range),
        };
      },
    }),
  ];
}
