import type { CounterChild, HistogramChild, MetricsRegistry } from './registry.ts';

/** Latency buckets in seconds: resolve answers in well under a millisecond, exports can take seconds. */
const LATENCY_BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface RouteSeries {
  labels: { route: string; method: string };
  byStatus: Map<number, CounterChild>;
  latency: HistogramChild;
}

/** A route as the router lists it: the route object is only an identity here. */
interface ListedRoute {
  method: string;
  pattern: string;
  route: object;
}

/**
 * Request counts per route, method and status, and latency per route: the
 * edge's `observe` hook. Series are found by the route object itself, so an
 * observation is two map lookups and no string work.
 */
export function httpMetrics(registry: MetricsRegistry, routes: readonly ListedRoute[]): (route: object | undefined, status: number, seconds: number) => void {
  const requests = registry.counter('paywalld_http_requests_total', 'HTTP requests answered, by route pattern, method and status.');
  const latency = registry.histogram('paywalld_http_request_duration_seconds', 'Time from request to the last byte handed to the socket.', LATENCY_BOUNDS);
  const series = new Map<object | undefined, RouteSeries>();
  const add = (route: object | undefined, labels: RouteSeries['labels']) => series.set(route, { labels, byStatus: new Map(), latency: latency.labels(labels) });
  for (const { method, pattern, route } of routes) add(route, { route: pattern, method });
  add(undefined, { route: 'unmatched', method: '' });

  return (route, status, seconds) => {
    const s = series.get(route)!;
    let counter = s.byStatus.get(status);
    if (!counter) s.byStatus.set(status, (counter = requests.labels({ ...s.labels, status: String(status) })));
    counter.inc();
    s.latency.observe(seconds);
  };
}
