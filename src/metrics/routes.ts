import { type RouteDefinition, route } from '../http/route.ts';
import type { MetricsRegistry } from './registry.ts';

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics in the Prometheus text format. On the main port it needs a
 * secret key (of any project: the metrics are the server's, not a
 * project's); `serve --metrics-port` also serves it without a key on a
 * separate listener bound to localhost, for a scraper on the same machine.
 */
export function metricsRoute(metrics: MetricsRegistry, auth: 'secret' | 'none'): RouteDefinition {
  return route({
    method: 'GET',
    pattern: '/metrics',
    doc: {
      operationId: 'getMetrics',
      errors: [],
      summary: 'Prometheus metrics of the server',
      tag: 'operations',
      auth,
      // The metrics are the server's, not a project's: a signed-in person needs a role that reads beyond configuration in any project.
      ...(auth === 'secret' ? { access: 'analyze' as const } : {}),
      responses: { 200: { description: 'Prometheus text exposition format', mediaType: PROMETHEUS_TEXT } },
    },
    handler: () => ({ status: 200, headers: { 'Content-Type': PROMETHEUS_TEXT, 'Cache-Control': 'no-store' }, body: metrics.expose() }),
  });
}

export function metricsApi(metrics: MetricsRegistry): RouteDefinition[] {
  return [metricsRoute(metrics, 'secret')];
}
