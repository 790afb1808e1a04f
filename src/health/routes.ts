import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { json } from '../http/reply.ts';
import type { RouteDefinition } from '../http/route.ts';

const HealthSchema = v.object({ status: v.literal('ok') });
const ReadySchema = v.object({ status: v.literal('ready') });

export function healthApi(ctx: AppContext): RouteDefinition[] {
  // SELECT 1 touches no file. Page 1 (the schema) is read from the file itself: the page cache is
  // dropped first (shrink_memory), else a database whose file is gone or damaged would still look fine.
  const dropCache = ctx.db.prepare('PRAGMA shrink_memory');
  const readPage = ctx.db.prepare('SELECT count(*) FROM sqlite_schema').pluck();
  return [
    {
      method: 'GET',
      pattern: '/healthz',
      doc: {
        summary: 'Liveness: 200 while the database file can be read',
        tag: 'operations',
        auth: 'none',
        responses: { 200: { description: 'healthy', schema: HealthSchema } },
      },
      handler: () => {
        try {
          dropCache.run();
          readPage.get();
        } catch {
          throw new ProblemError(503, 'database_unavailable', 'the database does not answer', { headers: { 'Retry-After': '1' } });
        }
        return json(200, { status: 'ok' }, { 'Cache-Control': 'no-store' });
      },
    },
    {
      method: 'GET',
      pattern: '/readyz',
      doc: {
        summary: 'Readiness: 200 while serving; 503 while draining for shutdown (start-up migrations finish before the port opens)',
        tag: 'operations',
        auth: 'none',
        responses: { 200: { description: 'ready for traffic', schema: ReadySchema } },
      },
      handler: () => {
        if (ctx.lifecycle.draining) {
          throw new ProblemError(503, 'draining', 'the server is shutting down', { headers: { 'Retry-After': '1' } });
        }
        return json(200, { status: 'ready' }, { 'Cache-Control': 'no-store' });
      },
    },
  ];
}
