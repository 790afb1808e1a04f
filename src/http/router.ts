/**
 * A small method + path router. Patterns are literal segments and named
 * segments (`/api/paywalls/:id/publish`). Fully literal paths are found with
 * one Map lookup, which keeps the SDK hot path cheap; patterns with
 * parameters are tried in registration order.
 */
export type Params = Record<string, string>;

type Match<T> =
  | { kind: 'found'; route: T; params: Params }
  /** The path exists, but not for this method; `routes` are the path's routes (for CORS preflights). */
  | { kind: 'method_not_allowed'; allow: string[]; routes: T[] }
  | { kind: 'not_found' };

interface Pattern<T> {
  pattern: string;
  segments: string[];
  methods: Map<string, T>;
}

const NO_PARAMS: Params = Object.freeze({}) as Params;

export class Router<T> {
  private readonly literal = new Map<string, Map<string, T>>();
  private readonly patterns: Pattern<T>[] = [];

  add(method: string, pattern: string, route: T): void {
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with "/": ${pattern}`);
    const methods = pattern.includes('/:') ? this.patternMethods(pattern) : this.literalMethods(pattern);
    if (methods.has(method)) throw new Error(`duplicate route ${method} ${pattern}`);
    methods.set(method, route);
  }

  match(method: string, path: string): Match<T> {
    const literal = this.literal.get(path);
    if (literal) return this.pick(literal, method, NO_PARAMS);
    if (this.patterns.length === 0) return { kind: 'not_found' };
    const segments = path.split('/');
    for (const candidate of this.patterns) {
      const params = matchSegments(candidate.segments, segments);
      if (params) return this.pick(candidate.methods, method, params);
    }
    return { kind: 'not_found' };
  }

  /** Every registered (method, pattern) pair, for the OpenAPI document and its test. */
  routes(): { method: string; pattern: string; route: T }[] {
    const out: { method: string; pattern: string; route: T }[] = [];
    for (const [pattern, methods] of this.literal) for (const [method, route] of methods) out.push({ method, pattern, route });
    for (const p of this.patterns) for (const [method, route] of p.methods) out.push({ method, pattern: p.pattern, route });
    return out;
  }

  private pick(methods: Map<string, T>, method: string, params: Params): Match<T> {
    const route = methods.get(method) ?? (method === 'HEAD' ? methods.get('GET') : undefined);
    if (route !== undefined) return { kind: 'found', route, params };
    return { kind: 'method_not_allowed', allow: allowed(methods), routes: [...methods.values()] };
  }

  private literalMethods(pattern: string): Map<string, T> {
    let methods = this.literal.get(pattern);
    if (!methods) this.literal.set(pattern, (methods = new Map()));
    return methods;
  }

  private patternMethods(pattern: string): Map<string, T> {
    let entry = this.patterns.find((p) => p.pattern === pattern);
    if (!entry) {
      entry = { pattern, segments: pattern.split('/'), methods: new Map() };
      this.patterns.push(entry);
    }
    return entry.methods;
  }
}

/** Named segments match one non-empty raw (still percent-encoded) segment. */
function matchSegments(pattern: string[], path: string[]): Params | undefined {
  if (pattern.length !== path.length) return undefined;
  let params: Params | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i]!;
    const got = path[i]!;
    if (want.startsWith(':')) {
      if (got === '') return undefined;
      (params ??= {})[want.slice(1)] = got;
    } else if (want !== got) {
      return undefined;
    }
  }
  return params ?? NO_PARAMS;
}

/** The Allow header's methods: HEAD comes with GET, OPTIONS is always answered. */
function allowed<T>(methods: Map<string, T>): string[] {
  const allow = new Set(methods.keys());
  if (allow.has('GET')) allow.add('HEAD');
  allow.add('OPTIONS');
  return [...allow].sort();
}
