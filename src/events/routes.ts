import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { authenticate } from '../http/auth.ts';
import { issuesToErrors } from '../http/issues.ts';
import { readJson } from '../http/json.ts';
import { ProblemError } from '../http/problem.ts';
import { json } from '../http/reply.ts';
import type { Request } from '../http/request.ts';
import type { RouteDefinition } from '../http/route.ts';
import { exportEvents } from './export.ts';
import { parseEnvelope, prepareBatch } from './ingest.ts';
import { eventMetrics } from './metrics.ts';
import {
  EventBatchSchema,
  ExportedEventSchema,
  ExportQuerySchema,
  type IngestResult,
  IngestResultSchema,
  type Stats,
  StatsQuerySchema,
  StatsSchema,
} from './schema.ts';
import { dayOf, dayText, FIRST_PRINTABLE_DAY, LAST_PRINTABLE_DAY } from './time.ts';
import { EventWriter } from './writer/writer.ts';

/** Largest request body of an event batch; the edge answers 413 past it and reads no further. */
export const MAX_BATCH_BYTES = 1024 * 1024;
/** Statistics cover at most this many days per request. */
const MAX_STATS_DAYS = 366;
/** Statistics default to the 30 days ending today. */
const DEFAULT_STATS_DAYS = 30;

function query<S extends v.GenericSchema>(schema: S, req: Request): v.InferOutput<S> {
  const result = v.safeParse(schema, Object.fromEntries(req.query()));
  if (result.success) return result.output;
  throw new ProblemError(400, 'invalid_query', 'the query string is invalid; see errors', { errors: issuesToErrors(result.issues) });
}

function invalidRange(detail: string): ProblemError {
  return new ProblemError(400, 'invalid_range', detail);
}

export function eventsApi(ctx: AppContext): RouteDefinition[] {
  const writer = new EventWriter({
    dbPath: ctx.config.dbPath,
    retentionDays: ctx.config.retentionDays,
    queueLimit: ctx.config.eventQueueLimit,
    log: ctx.log,
    onTransaction: (rows) => count.transaction(rows),
  });
  // After the HTTP server stopped and drained: commits whatever is still queued, then the writer thread ends.
  ctx.onShutdown(() => writer.close());
  const count = eventMetrics(ctx.metrics, writer);

  /** The project of the request's key; undefined for a keyless request, which --require-key refuses. */
  function sender(req: Request): string | undefined {
    const authorization = req.header('authorization');
    if (authorization === '' && !ctx.config.requireKey) return undefined;
    return authenticate(authorization, ctx.auth, 'sdk').projectId;
  }

  return [
    {
      method: 'POST',
      pattern: '/api/sdk/events',
      maxBody: MAX_BATCH_BYTES,
      doc: {
        summary: 'Send a batch of analytics events; answered once the accepted events are committed',
        tag: 'events',
        auth: 'sdk',
        requestBody: EventBatchSchema,
        responses: {
          200: { description: 'done: do not retry (rejected events are listed by index)', schema: IngestResultSchema },
        },
      },
      handler: async (req) => {
        const projectId = sender(req);
        const receivedAt = Date.now();
        const batch = parseEnvelope(readJson(req));
        const { rows, rejected } = prepareBatch(batch, { projectId, receivedAt, paywalls: ctx.paywalls });
        const accepted = rows.length === 0 ? 0 : await writer.write(rows);
        const result: IngestResult = { accepted, duplicates: rows.length - accepted, rejected };
        count.stored(result.accepted);
        count.duplicates(result.duplicates);
        for (const rejection of rejected) count.rejected(rejection.code);
        return json(200, result);
      },
    },
    {
      method: 'GET',
      pattern: '/api/paywalls/:id/stats',
      doc: {
        summary: 'Per-variant statistics of a paywall per UTC day and in total (default: the last 30 days)',
        tag: 'events',
        auth: 'secret',
        query: StatsQuerySchema,
        responses: { 200: { description: 'the statistics', schema: StatsSchema } },
      },
      handler: async (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'secret');
        const range = query(StatsQuerySchema, req);
        const toDay = dayOf(range.to ?? Date.now());
        const fromDay = range.from === undefined ? toDay - (DEFAULT_STATS_DAYS - 1) : dayOf(range.from);
        if (fromDay < FIRST_PRINTABLE_DAY || toDay > LAST_PRINTABLE_DAY) throw invalidRange('the range must lie within the years 0000 to 9999');
        if (fromDay > toDay) throw invalidRange('from must not be after to');
        if (toDay - fromDay + 1 > MAX_STATS_DAYS) throw invalidRange(`statistics cover at most ${MAX_STATS_DAYS} days per request`);
        const paywallId = req.params.id!;
        const variants = await writer.stats(projectId, paywallId, fromDay, toDay);
        const body: Stats = { paywall_id: paywallId, from: dayText(fromDay), to: dayText(toDay), variants };
        return json(200, body, { 'Cache-Control': 'no-store' });
      },
    },
    {
      method: 'GET',
      pattern: '/api/events',
      doc: {
        summary: "Export the project's raw events as NDJSON, oldest first (default: every stored event)",
        tag: 'events',
        auth: 'secret',
        query: ExportQuerySchema,
        responses: { 200: { description: 'one event per line', mediaType: 'application/x-ndjson', schema: ExportedEventSchema } },
      },
      handler: (req) => {
        const { projectId } = authenticate(req.header('authorization'), ctx.auth, 'secret');
        const { paywallId, from = 0, to = Number.MAX_SAFE_INTEGER } = query(ExportQuerySchema, req);
        if (from > to) throw invalidRange('from must not be after to');
        return {
          status: 200,
          headers: { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' },
          body: exportEvents(ctx.config.dbPath, { projectId, paywallId, from, to }),
        };
      },
    },
  ];
}
