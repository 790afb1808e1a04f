/**
 * A configuration target that is a running server, through the documented
 * management API with a secret key. The key goes into the Authorization
 * header and nowhere else: no message, log line or error carries it.
 */
import type { PaywallOutput } from '../paywalls/document/schema.ts';
import type { PlacementDocument } from '../placements/schema.ts';
import { type ConfigBackend, type Expect, TargetError } from './backend.ts';
import type { CurrentState, ProductContent } from './state.ts';

/** 429s are waited out (Retry-After) this many times before giving up: the API rate limit is per key. */
const MAX_RATE_LIMITED = 20;
const MAX_RETRY_AFTER_S = 10;

interface Problem {
  code?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

interface Answer {
  status: number;
  etag: string;
  body: unknown;
}

function expectHeaders(expect: Expect): Record<string, string> {
  return 'create' in expect ? { 'If-None-Match': '*' } : { 'If-Match': expect.ifMatch };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class HttpBackend implements ConfigBackend {
  readonly transactional = false;
  readonly target: string;
  private readonly base: string;

  constructor(
    server: string,
    private readonly key: string,
  ) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new TargetError(`--server must be a URL such as http://127.0.0.1:8787`, 'usage');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetError('--server must be an http:// or https:// URL', 'usage');
    this.base = url.origin + url.pathname.replace(/\/+$/, '');
    this.target = this.base;
  }

  private async call(method: string, path: string, what: string, options: { body?: unknown; headers?: Record<string, string>; ok: number[] }): Promise<Answer> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.key}`, ...options.headers };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(this.base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new TargetError(`cannot reach ${this.base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, 'unreachable');
      }
      const text = await response.text();
      if (response.status === 429 && attempt < MAX_RATE_LIMITED) {
        const wait = Math.min(MAX_RETRY_AFTER_S, Math.max(1, Number(response.headers.get('retry-after')) || 1));
        await sleep(wait * 1000);
        continue;
      }
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        throw new TargetError(
          `${what}: ${method} ${path} answered ${response.status} with a body that is not JSON; is ${this.base} a paywalld server?`,
          'bad_answer',
        );
      }
      if (options.ok.includes(response.status)) return { status: response.status, etag: response.headers.get('etag') ?? '', body };
      const problem = (body ?? {}) as Problem;
      const details = (problem.errors ?? []).map((e) => `${e.path || '/'}: ${e.message}`).join('; ');
      const code = problem.code ?? `http_${response.status}`;
      throw new TargetError(`${what}: ${response.status} ${code}: ${problem.detail ?? 'no detail'}${details ? ` (${details})` : ''}`, code);
    }
  }

  async read(): Promise<CurrentState> {
    const catalog = await this.call('GET', '/api/products', 'list products', { ok: [200] });
    const products = [];
    for (const { id } of (catalog.body as { products: { id: string }[] }).products) {
      const answer = await this.call('GET', `/api/products/${encodeURIComponent(id)}`, `product ${id}`, { ok: [200] });
      const product = answer.body as ProductContent;
      products.push({ id, name: product.name, store_ids: product.store_ids, tag: answer.etag });
    }
    const list = await this.call('GET', '/api/paywalls', 'list paywalls', { ok: [200] });
    const paywalls = [];
    for (const { id } of (list.body as { paywalls: { id: string }[] }).paywalls) {
      const answer = await this.call('GET', `/api/paywalls/${encodeURIComponent(id)}`, `paywall ${id}`, { ok: [200] });
      const detail = answer.body as { status: 'draft' | 'live' | 'archived'; revision: number; live_revision: number | null; document: PaywallOutput };
      paywalls.push({ id, status: detail.status, revision: detail.revision, liveRevision: detail.live_revision, tag: answer.etag, document: detail.document });
    }
    // A server from before placements answers 404: it has none.
    const placementList = await this.call('GET', '/api/placements', 'list placements', { ok: [200, 404] });
    const listed = placementList.status === 200 ? (placementList.body as { placements: { id: string }[] }).placements : [];
    const placements = [];
    for (const { id } of listed) {
      const answer = await this.call('GET', `/api/placements/${encodeURIComponent(id)}`, `placement ${id}`, { ok: [200] });
      const detail = answer.body as { status: 'active' | 'archived'; document: PlacementDocument };
      placements.push({ id, status: detail.status, tag: answer.etag, document: detail.document });
    }
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return { products: products.sort(byId), paywalls: paywalls.sort(byId), placements: placements.sort(byId) };
  }

  async revision(paywallId: string, revision: number): Promise<PaywallOutput> {
    const answer = await this.call('GET', `/api/paywalls/${encodeURIComponent(paywallId)}/revisions/${revision}`, `paywall ${paywallId}`, { ok: [200] });
    return (answer.body as { document: PaywallOutput }).document;
  }

  async putProduct(id: string, content: ProductContent, expect: Expect): Promise<void> {
    await this.call('PUT', `/api/products/${encodeURIComponent(id)}`, `product ${id}`, { body: content, headers: expectHeaders(expect), ok: [200, 201] });
  }

  async deleteProduct(id: string, ifMatch: string): Promise<void> {
    await this.call('DELETE', `/api/products/${encodeURIComponent(id)}`, `product ${id}`, { headers: { 'If-Match': ifMatch }, ok: [204] });
  }

  async putPaywall(id: string, document: PaywallOutput, expect: Expect): Promise<{ revision: number; tag: string }> {
    const answer = await this.call('PUT', `/api/paywalls/${encodeURIComponent(id)}`, `paywall ${id}`, {
      body: document,
      headers: expectHeaders(expect),
      ok: [200, 201],
    });
    return { revision: (answer.body as { revision: number }).revision, tag: answer.etag };
  }

  async publish(id: string, revision: number, ifMatch: string): Promise<string> {
    const path = `/api/paywalls/${encodeURIComponent(id)}/publish`;
    return (await this.call('POST', path, `paywall ${id}`, { body: { revision }, headers: { 'If-Match': ifMatch }, ok: [200] })).etag;
  }

  async archive(id: string, ifMatch: string): Promise<string> {
    return (await this.call('DELETE', `/api/paywalls/${encodeURIComponent(id)}`, `paywall ${id}`, { headers: { 'If-Match': ifMatch }, ok: [200] })).etag;
  }

  async putPlacement(id: string, document: PlacementDocument, expect: Expect): Promise<string> {
    const path = `/api/placements/${encodeURIComponent(id)}`;
    return (await this.call('PUT', path, `placement ${id}`, { body: document, headers: expectHeaders(expect), ok: [200, 201] })).etag;
  }

  async archivePlacement(id: string, ifMatch: string): Promise<string> {
    return (await this.call('DELETE', `/api/placements/${encodeURIComponent(id)}`, `placement ${id}`, { headers: { 'If-Match': ifMatch }, ok: [200] })).etag;
  }

  async atomically<T>(steps: () => Promise<T>): Promise<T> {
    return steps();
  }
}
