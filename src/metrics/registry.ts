/**
 * A small Prometheus registry, written here instead of taken from prom-client
 * because the request path observes every request: these metrics count into
 * plain arrays keyed by precomputed label sets, with no per-observation
 * string building or label hashing. The text exposition format is
 * https://prometheus.io/docs/instrumenting/exposition_formats/.
 */
type Labels = Readonly<Record<string, string>>;

interface Metric {
  expose(): string;
}

function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"');
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(`${extra[0]}="${extra[1]}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
}

/** One time series of a counter; keep the handle to count without lookups. */
export class CounterChild {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(by = 1): void {
    this.value += by;
  }
}

class Counter implements Metric {
  private readonly children = new Map<string, CounterChild>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series for these labels, created on first use. */
  labels(labels: Labels = {}): CounterChild {
    const key = labelText(labels);
    let child = this.children.get(key);
    if (!child) this.children.set(key, (child = new CounterChild(labels)));
    return child;
  }

  expose(): string {
    let out = header(this.name, this.help, 'counter');
    for (const [key, child] of this.children) out += `${this.name}${key} ${child.value}\n`;
    return out;
  }
}

export class HistogramChild {
  /** counts[i] counts observations <= bounds[i]; the last slot is +Inf. */
  readonly counts: number[];
  sum = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
  }
}

class Histogram implements Metric {
  private readonly children = new Map<string, HistogramChild>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  labels(labels: Labels = {}): HistogramChild {
    const key = labelText(labels);
    let child = this.children.get(key);
    if (!child) this.children.set(key, (child = new HistogramChild(labels, this.bounds)));
    return child;
  }

  expose(): string {
    let out = header(this.name, this.help, 'histogram');
    for (const child of this.children.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += child.counts[i]!;
        out += `${this.name}_bucket${labelText(child.labels, ['le', String(bound)])} ${cumulative}\n`;
      });
      cumulative += child.counts[this.bounds.length]!;
      out += `${this.name}_bucket${labelText(child.labels, ['le', '+Inf'])} ${cumulative}\n`;
      out += `${this.name}_sum${labelText(child.labels)} ${child.sum}\n`;
      out += `${this.name}_count${labelText(child.labels)} ${cumulative}\n`;
    }
    return out;
  }
}

/**
 * A value read when scraped, so nothing is updated on the request path. It is
 * a gauge, or a counter when what it reads only grows (CPU seconds, rows
 * written by another thread).
 */
class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly collect: () => number | [Labels, number][],
    private readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}

  expose(): string {
    const value = this.collect();
    let out = header(this.name, this.help, this.type);
    if (typeof value === 'number') return `${out}${this.name} ${value}\n`;
    for (const [labels, v] of value) out += `${this.name}${labelText(labels)} ${v}\n`;
    return out;
  }
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  counter(name: string, help: string): Counter {
    return this.add(name, new Counter(name, help));
  }

  histogram(name: string, help: string, bounds: readonly number[]): Histogram {
    return this.add(name, new Histogram(name, help, bounds));
  }

  gauge(name: string, help: string, collect: () => number | [Labels, number][], type: 'gauge' | 'counter' = 'gauge'): Gauge {
    return this.add(name, new Gauge(name, help, collect, type));
  }

  /** The whole registry in the Prometheus text format. */
  expose(): string {
    let out = '';
    for (const metric of this.metrics.values()) out += metric.expose();
    return out;
  }

  private add<M extends Metric>(name: string, metric: M): M {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`invalid metric name ${name}`);
    if (this.metrics.has(name)) throw new Error(`metric ${name} registered twice`);
    this.metrics.set(name, metric);
    return metric;
  }
}
