import type { AppContext } from '../context.ts';
import { authenticate } from '../http/auth.ts';
import type { RouteDefinition } from '../http/route.ts';

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics in the Prometheus text format. On the main port it needs a
 * secret key (of any project: the metrics are the server's, not a
 * project's); `serve --metrics-port` also serves it without a key on a
 * separate listener bound to localhost, for a scraper on the same machine.
 */
export function metricsRoute(ctx: AppContext, auth: 'secret' | 'none'): RouteDefinition {
  return {
    method: 'GET',
    pattern: '/metrics',
    doc: {
      summary: 'Prometheus metrics of the server',
      tag: 'operations',
      auth,
      responses: { 200: { description: 'Prometheus text exposition format', mediaType: PROMETHEUS_TEXT } },
    },
    handler: (req) => {
      if (auth === 'secret') authenticate(req.header('authorization'), ctx.auth, 'secret');
      return { status: 200, headers: { 'Content-Type': PROMETHEUS_TEXT, 'Cache-Control': 'no-store' }, body: ctx.metrics.expose() };
    },
  };
}

export function metricsApi(ctx: AppContext): RouteDefinition[] {
  return [metricsRoute(ctx, 'secret')];
}
