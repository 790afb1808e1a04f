import * as v from 'valibot';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import type { Health } from './service.ts';

const HealthSchema = v.object({ status: v.literal('ok') });
const ReadySchema = v.object({ status: v.literal('ready') });

export function healthApi(health: Health): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/healthz',
      doc: {
        operationId: 'checkLiveness',
        errors: ['database_unavailable'],
        summary: 'Liveness: 200 while the database answers (SQLite: its file can be read; PostgreSQL: a query round trip)',
        tag: 'operations',
        auth: 'none',
        responses: { 200: { description: 'healthy', schema: HealthSchema } },
      },
      handler: async () => {
        await health.checkLive();
        return json(200, { status: 'ok' }, { 'Cache-Control': 'no-store' });
      },
    }),
    route({
      method: 'GET',
      pattern: '/readyz',
      doc: {
        operationId: 'checkReadiness',
        errors: ['draining'],
        summary: 'Readiness: 200 while serving; 503 while draining for shutdown (start-up migrations finish before the port opens)',
        tag: 'operations',
        auth: 'none',
        responses: { 200: { description: 'ready for traffic', schema: ReadySchema } },
      },
      handler: () => {
        health.checkReady();
        return json(200, { status: 'ready' }, { 'Cache-Control': 'no-store' });
      },
    }),
  ];
}
