/**
 * getPlacement: asks GET /api/sdk/placement which paywall (if any) to show
 * at a moment of the app (docs/guide/placements.md), revalidates the last answer
 * with its ETag, applies the rule's frequency cap on the device too, sends
 * the holdout's exposure, and decides offline from the fallback bundle when
 * the server cannot be reached.
 */
import { evalCondition } from '../src/paywalls/targeting/condition.ts';
import { assignBucket } from '../src/paywalls/targeting/hash.ts';
import { normalizeLocale } from '../src/paywalls/targeting/locale.ts';
import { holdoutSeed } from '../src/placements/holdout-seed.ts';
import type { Paywall } from './client.ts';
import { errorOf, PaywalldError, TransportError } from './errors.ts';
import type { FallbackPaywalls } from './fallback.ts';
import { type Fetch, requestWithin } from './http.ts';
import type { PlacementOpens } from './placement-opens.ts';
import type { PlacementResult } from './placement-result.ts';
import type { FallbackPlacement, PlacementAnswer, ResolvedPaywall } from './types.generated.ts';

/** What getPlacement asks with: getPaywall's options. */
export interface PlacementRequest {
  userId: string | undefined;
  platform: 'ios' | 'android' | 'web' | undefined;
  locale: string | undefined;
  locales: readonly string[];
  country: string | undefined;
  appVersion: string | undefined;
  attributes: Record<string, string> | undefined;
  timeoutMs: number;
  refresh: boolean | undefined;
}

interface PlacementDeps {
  baseUrl: string;
  fetch: Fetch;
  authorization: Record<string, string>;
  fallbacks: FallbackPaywalls;
  opens: PlacementOpens;
  /** The paywall is shown through the placement: its events carry both. */
  shown(paywall: ResolvedPaywall, placement: string): void;
  /** A holdout user is exposed: the placement_holdout event its results count. */
  heldOut(placement: string, paywallId: string | null): void;
}

/** The last answer to one request, and the ETag that revalidates it. */
interface CachedAnswer {
  etag: string;
  answer: PlacementAnswer;
}

/** Answers kept in memory; past it the oldest is forgotten. */
const MEMORY_ANSWERS = 200;

function readAnswer(body: unknown, placement: string): PlacementAnswer {
  const answer = body as PlacementAnswer | undefined;
  if (answer?.placement !== placement || typeof answer.show !== 'boolean' || (answer.show && typeof answer.paywall?.paywall_id !== 'string')) {
    throw new PaywalldError(200, 'invalid_response', "the answer is not a placement's (a captive portal or a proxy's page?)");
  }
  return answer;
}

/** The attributes audiences test, as the server builds them from the same query (src/paywalls/resolve/request.ts). */
function attributesOf(request: PlacementRequest): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (request.userId !== undefined) attributes.userId = request.userId;
  if (request.platform !== undefined) attributes.platform = request.platform;
  if (request.country !== undefined) attributes.country = request.country.toUpperCase();
  if (request.appVersion !== undefined) attributes.appVersion = request.appVersion;
  const locale = request.locales[0];
  if (locale !== undefined) attributes.locale = normalizeLocale(locale) ?? locale;
  if (request.attributes) attributes.attr = { ...request.attributes };
  return attributes;
}

export class Placements {
  private readonly cache = new Map<string, CachedAnswer>();

  constructor(private readonly deps: PlacementDeps) {}

  async get(placement: string, request: PlacementRequest): Promise<PlacementResult> {
    const query = new URLSearchParams({ placement });
    if (request.userId) query.set('userId', request.userId);
    if (request.platform) query.set('platform', request.platform);
    if (request.locale) query.set('locale', request.locale);
    if (request.country) query.set('country', request.country);
    if (request.appVersion) query.set('appVersion', request.appVersion);
    for (const name of Object.keys(request.attributes ?? {}).sort()) query.set(`attr.${name}`, request.attributes![name]!);
    const key = `${query}\n${request.locale ? '' : request.locales.join(',')}`;
    const cached = this.cache.get(key);
    let failure: Error;
    try {
      const headers: Record<string, string> = { ...this.deps.authorization };
      if (cached && !request.refresh) headers['if-none-match'] = cached.etag;
      const url = `${this.deps.baseUrl}/api/sdk/placement?${query}`;
      const answer = await requestWithin(this.deps.fetch, url, { headers }, request.timeoutMs, async (response) => {
        if (response.status === 304 && cached) return cached.answer;
        if (response.status !== 200) throw await errorOf(response);
        const read = readAnswer(await response.json().catch(() => undefined), placement);
        const etag = response.headers.get('etag');
        if (etag) this.remember(key, { etag, answer: read });
        return read;
      });
      return await this.settle(answer, 'network');
    } catch (error) {
      // As getPaywall: only a missing answer, an overloaded or failing server fall back; a refusal is the app's to see.
      const transient =
        error instanceof TransportError ||
        (error instanceof PaywalldError && (error.status >= 500 || error.status === 429 || error.code === 'invalid_response'));
      if (!transient) throw error;
      failure = error as Error;
    }
    if (cached) return { ...(await this.settle(cached.answer, 'cache')), error: failure };
    await this.deps.fallbacks.ready;
    const bundled = this.deps.fallbacks.placement(placement);
    if (!bundled) {
      throw new PaywalldError(0, 'unavailable', `placement ${placement}: no answer from the server, none cached and not in the fallback bundle`, {
        cause: failure,
      });
    }
    return { ...(await this.offline(bundled, request)), error: failure };
  }

  /** The answer as the app gets it: the device's own count of opens against the cap, the holdout's exposure sent. */
  private async settle(answer: PlacementAnswer, source: 'network' | 'cache'): Promise<PlacementResult> {
    if (!answer.show) {
      if (answer.reason === 'holdout') this.deps.heldOut(answer.placement, answer.paywall_id);
      return { show: false, placement: answer.placement, reason: answer.reason, source };
    }
    await this.deps.opens.ready;
    if (answer.frequency && this.deps.opens.count(answer.placement, answer.frequency.per) >= answer.frequency.limit) {
      return { show: false, placement: answer.placement, reason: 'frequency_cap', source };
    }
    this.deps.shown(answer.paywall, answer.placement);
    return { show: true, placement: answer.placement, rule: answer.rule, paywall: answer.paywall as Paywall, source };
  }

  /**
   * The decision without the server, from the bundle: the rules in order, the
   * first whose audience matches decides; a rule testing purchases.* (which
   * only the server knows) stops the walk with nothing shown, since showing
   * a later rule's offer could show it to a user not entitled to it.
   */
  private async offline(placement: FallbackPlacement, request: PlacementRequest): Promise<PlacementResult> {
    const id = placement.placement;
    const attributes = attributesOf(request);
    let decided: FallbackPlacement['rules'][number] | undefined;
    let index: number | null = null;
    for (const [i, rule] of placement.rules.entries()) {
      if (rule.server_only) return { show: false, placement: id, reason: 'offline', source: 'fallback' };
      if (rule.audience === null || evalCondition(attributes, rule.audience)) {
        decided = rule;
        index = i;
        break;
      }
    }
    const paywallId = decided?.paywall_id ?? placement.default;
    if (paywallId === null) return { show: false, placement: id, reason: 'no_rule_matched', source: 'fallback' };
    const paywall = this.deps.fallbacks.resolve(paywallId, request.locales, request.platform);
    if (!paywall) return { show: false, placement: id, reason: 'paywall_not_live', source: 'fallback' };
    if (decided && request.userId !== undefined && assignBucket(holdoutSeed(id), request.userId) < Math.round(decided.holdout_percent * 100)) {
      this.deps.heldOut(id, paywallId);
      return { show: false, placement: id, reason: 'holdout', source: 'fallback' };
    }
    await this.deps.opens.ready;
    if (decided?.frequency && this.deps.opens.count(id, decided.frequency.per) >= decided.frequency.limit) {
      return { show: false, placement: id, reason: 'frequency_cap', source: 'fallback' };
    }
    this.deps.shown(paywall, id);
    return { show: true, placement: id, rule: index, paywall: paywall as Paywall, source: 'fallback' };
  }

  private remember(key: string, answer: CachedAnswer): void {
    this.cache.delete(key);
    this.cache.set(key, answer);
    if (this.cache.size > MEMORY_ANSWERS) this.cache.delete(this.cache.keys().next().value!);
  }
}
