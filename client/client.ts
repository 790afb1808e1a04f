import { appAccountToken, obfuscatedAccountId } from './app-account-token.ts';
import { PaywallCache } from './cache.ts';
import type { ComponentNode } from './component-node.ts';
import { errorOf, PaywalldError, TransportError } from './errors.ts';
import { type CurrencyCode, customEventType, type EventType } from './event-types.ts';
import { EventQueue, type QueuedEvent, type QueueStatus, type RejectedEvent } from './events.ts';
import { checkBundle, FallbackPaywalls } from './fallback.ts';
import { firstViewedAt } from './first-view.ts';
import { type Fetch, requestWithin } from './http.ts';
import { Identity } from './identity.ts';
import { newEventId } from './ids.ts';
import { PlacementOpens } from './placement-opens.ts';
import type { PlacementResult } from './placement-result.ts';
import { Placements } from './placements.ts';
import { type ClientStorage, memoryStorage } from './storage.ts';
import type { EventInput, FallbackBundle, ResolvedPaywall, SdkConfigQuery } from './types.generated.ts';

export type Platform = NonNullable<SdkConfigQuery['platform']>;

/**
 * A bundle as the app ships it: a `FallbackBundle`, or the file imported as JSON
 * (`import fallback from './paywalld-fallback.json' with { type: 'json' }`), which
 * TypeScript types with plain numbers and strings where the bundle has literals.
 * createClient checks its outline either way and throws `invalid_fallback` for a file that is not one.
 */
export type ShippedBundle = FallbackBundle | { format: number; paywalls: readonly object[] };

export interface ClientOptions {
  /** Where paywalld answers, such as `https://paywall.example.com`. */
  baseUrl: string;
  /** An sdk key (`pwk_sdk_…`). */
  apiKey: string;
  /** Keeps the event queue, the last answers and a downloaded bundle across restarts: localStorage, AsyncStorage, a file. Default: memory only. */
  storage?: ClientStorage;
  /** The bundle(s) shipped in the app (`paywalld fallback --out`, imported as JSON or read and parsed), shown when the server cannot be reached and nothing newer is cached. */
  fallback?: ShippedBundle | readonly ShippedBundle[];
  /**
   * The signed-in user, when the app knows it at start. Without it the client creates an anonymous id once
   * (kept in storage) and uses it until identify(); every event and resolve carries the current id.
   */
  userId?: string;
  /** The app's platform, sent with every getPaywall unless it names another. */
  platform?: Platform;
  /** How long getPaywall waits for an answer before it falls back (ms). Default 3000. */
  timeoutMs?: number;
  /** Events per batch (at most 1000). Default 50. */
  batchSize?: number;
  /** How long an event waits for a batch to fill before it is sent anyway (ms). Default 5000. */
  flushIntervalMs?: number;
  /** Events kept while the server cannot be reached; past it the oldest are dropped. Default 10000. */
  maxQueuedEvents?: number;
  /** Called with the events the server refused (they are not retried). */
  onRejected?: (rejected: RejectedEvent[]) => void;
  /** Called with failures the app may want to log: storage errors, failed sends. */
  onError?: (error: unknown) => void;
  /** The fetch to use; default the global one. */
  fetch?: Fetch;
}

export interface GetPaywallOptions {
  userId?: string;
  /** A BCP 47 tag; default the browser's languages (the server then also reads Accept-Language). */
  locale?: string;
  platform?: Platform;
  country?: string;
  appVersion?: string;
  /** Custom attributes for audiences, sent as attr.NAME. */
  attributes?: Record<string, string>;
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number;
  /** Asks for a full answer instead of revalidating the cached one (no If-None-Match). */
  refresh?: boolean;
}

/** A resolved paywall with its tree typed: `root` is a ComponentNode union on `type` (null for a holdout variant). */
export type Paywall = Omit<ResolvedPaywall, 'root'> & { root: ComponentNode | null };

export interface PaywallResult {
  /** network: the server answered (a 304 confirms the cached answer); cache: the last answer, the server being unreachable; fallback: the bundle. */
  source: 'network' | 'cache' | 'fallback';
  paywall: Paywall;
  /** Why the network answer is missing, when source is not network. */
  error?: Error;
}

/**
 * An event as the app tracks it: id and ts are filled in when absent, variant_id from the paywall's last answer,
 * user_id from the current user. `type` is a known type or a customEventType(); `currency` an upper-case ISO 4217 code.
 */
export type TrackEvent = Omit<EventInput, 'id' | 'ts' | 'type' | 'currency'> & { type: EventType; currency?: CurrencyCode | null; id?: string; ts?: number };

export interface PaywalldClient {
  getPaywall(paywallId: string, options?: GetPaywallOptions): Promise<PaywallResult>;
  /**
   * Which paywall, if any, to show at a moment of the app (a placement: docs/guide/placements.md): the paywall, or why none
   * (`reason`). The events tracked for that paywall carry the placement; a screen_impression of it counts towards the
   * rule's frequency cap on the device too; a holdout's exposure is sent for the placement's results. Offline, decided
   * from the fallback bundle's placements.
   */
  getPlacement(placementId: string, options?: GetPaywallOptions): Promise<PlacementResult>;
  /** Queues an event (persisted, sent in batches, retried until acknowledged) and returns it as it will be sent. */
  track(event: TrackEvent): QueuedEvent;
  /** Sends what is queued now; resolves with what is still pending (after a failed attempt of its own or timeoutMs, default 10000). */
  flush(options?: { timeoutMs?: number }): Promise<{ pending: number }>;
  /** Flushes, then stops; what is still pending stays in storage for the next start. */
  close(options?: { timeoutMs?: number }): Promise<{ pending: number }>;
  /**
   * Downloads the fallback bundle of these paywalls, and of these placements with the paywalls they name (revalidated with
   * its ETag), and keeps it in storage; newer revisions replace the shipped ones.
   */
  refreshFallback(paywallIds: readonly string[], placementIds?: readonly string[]): Promise<{ updated: boolean }>;
  /** The events the server refused lately (at most 100), with its reasons. */
  rejectedEvents(): RejectedEvent[];
  queueStatus(): QueueStatus;
  /**
   * The user signed in: events and resolves carry this id from now on, and the anonymous id used before is linked
   * to it on the server (POST /api/sdk/identify), so results count both as one user. Resolves once the link is sent (or failed: onError).
   */
  identify(userId: string): Promise<void>;
  /** The id events carry now: the user's, or the anonymous id; undefined only while an asynchronous storage is read. */
  currentUserId(): string | undefined;
  /** The appAccountToken to pass to StoreKit for this user (default: the current user), so App Store notifications name them. */
  appAccountToken(userId?: string): string;
  /** The obfuscatedAccountId to pass to Google Play Billing for this user (default: the current user), so Google Play notifications name them. */
  obfuscatedAccountId(userId?: string): string;
  /** When this user first saw the paywall (ms), kept in storage (the first call records now): renderPaywall's firstViewedAt, which countdowns of duration_seconds run from. */
  firstViewedAt(paywallId: string): Promise<number>;
}

const DEFAULT_TIMEOUT_MS = 3000;
const EVENTS_TIMEOUT_MS = 15_000;
const MAX_BATCH_SIZE = 1000;

/**
 * The body of a 200 from the config endpoint. A captive portal or a proxy's
 * page also answers 200: anything that is not this paywall's answer counts
 * as no answer, and the cache or the bundle is shown instead.
 */
async function readPaywall(response: Response, paywallId: string): Promise<ResolvedPaywall> {
  const body = (await response.json().catch(() => undefined)) as ResolvedPaywall | undefined;
  if (body?.paywall_id !== paywallId || typeof body.revision !== 'number' || typeof body.variant?.id !== 'string') {
    throw new PaywalldError(response.status, 'invalid_response', "the answer is not a resolved paywall (a captive portal or a proxy's page?)");
  }
  return body;
}

function browserLocales(): readonly string[] {
  const navigator = (globalThis as { navigator?: { languages?: readonly string[] } }).navigator;
  return Array.isArray(navigator?.languages) ? navigator.languages : [];
}

export function createClient(options: ClientOptions): PaywalldClient {
  if (typeof options?.baseUrl !== 'string' || typeof options.apiKey !== 'string' || options.apiKey === '') {
    throw new TypeError('createClient needs { baseUrl, apiKey }');
  }
  const baseUrl = new URL(options.baseUrl).href.replace(/\/+$/, '');
  const fetchImpl: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const storage = options.storage ?? memoryStorage();
  const report = (error: unknown) => options.onError?.(error);
  const authorization = { authorization: `Bearer ${options.apiKey}` };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const shipped: readonly ShippedBundle[] = options.fallback === undefined ? [] : Array.isArray(options.fallback) ? options.fallback : [options.fallback];
  const fallbacks = new FallbackPaywalls(shipped, storage);
  const cache = new PaywallCache(storage, report);
  /** The variant (and the audience that chose it: the experiment's segment) each paywall was last shown in, for the events about it. */
  const shownVariant = new Map<string, { id: string; audience: string | null }>();
  /** The placement each paywall was last shown through (none when getPaywall showed it), for the events about it. */
  const shownPlacement = new Map<string, string>();
  const opens = new PlacementOpens(storage, report);
  const batchSize = Math.min(MAX_BATCH_SIZE, Math.max(1, options.batchSize ?? 50));

  const queue = new EventQueue({
    storage,
    batchSize,
    flushIntervalMs: options.flushIntervalMs ?? 5000,
    maxQueue: options.maxQueuedEvents ?? 10_000,
    onRejected: (rejected) => options.onRejected?.(rejected),
    report,
    post: (body) =>
      requestWithin(
        fetchImpl,
        `${baseUrl}/api/sdk/events`,
        { method: 'POST', headers: { ...authorization, 'content-type': 'application/json' }, body },
        EVENTS_TIMEOUT_MS,
        async (response) => ({ status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json().catch(() => undefined) }),
      ),
  });

  const identity = new Identity({
    storage,
    userId: options.userId,
    report,
    link: (anonymousId, userId) =>
      requestWithin(
        fetchImpl,
        `${baseUrl}/api/sdk/identify`,
        {
          method: 'POST',
          headers: { ...authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ anonymous_id: anonymousId, user_id: userId }),
        },
        timeoutMs,
        async (response) => {
          if (response.status !== 200) throw await errorOf(response);
        },
      ),
  });

  /** Remembers the variant shown; the tree is typed here, as the server's schema and the fallback bundle build it. */
  function shown(result: Omit<PaywallResult, 'paywall'> & { paywall: ResolvedPaywall }, placement?: string): PaywallResult {
    shownVariant.set(result.paywall.paywall_id, { id: result.paywall.variant.id, audience: result.paywall.variant.audience });
    if (placement === undefined) shownPlacement.delete(result.paywall.paywall_id);
    else shownPlacement.set(result.paywall.paywall_id, placement);
    return result as PaywallResult;
  }

  const placements = new Placements({
    baseUrl,
    fetch: fetchImpl,
    authorization,
    fallbacks,
    opens,
    shown: (paywall, placement) => void shown({ source: 'network', paywall }, placement),
    heldOut: (placement, paywallId) => {
      if (paywallId !== null) client.track({ type: customEventType('placement_holdout'), paywall_id: paywallId, placement });
    },
  });

  async function getPlacement(placementId: string, call: GetPaywallOptions = {}): Promise<PlacementResult> {
    await identity.ready;
    return placements.get(placementId, {
      userId: call.userId ?? identity.current(),
      platform: call.platform ?? options.platform,
      locale: call.locale,
      locales: call.locale ? [call.locale] : browserLocales(),
      country: call.country,
      appVersion: call.appVersion,
      attributes: call.attributes,
      timeoutMs: call.timeoutMs ?? timeoutMs,
      refresh: call.refresh,
    });
  }

  async function getPaywall(paywallId: string, call: GetPaywallOptions = {}): Promise<PaywallResult> {
    const platform = call.platform ?? options.platform;
    const query = new URLSearchParams({ paywallId });
    await identity.ready;
    const userId = call.userId ?? identity.current();
    if (userId) query.set('userId', userId);
    if (platform) query.set('platform', platform);
    if (call.locale) query.set('locale', call.locale);
    if (call.country) query.set('country', call.country);
    if (call.appVersion) query.set('appVersion', call.appVersion);
    for (const name of Object.keys(call.attributes ?? {}).sort()) query.set(`attr.${name}`, call.attributes![name]!);
    const locales = call.locale ? [call.locale] : browserLocales();
    // Everything that can change the answer: the query, and the locales the server may read from Accept-Language.
    const requestKey = `${query}\n${call.locale ? '' : locales.join(',')}`;
    const cached = await cache.get(paywallId, requestKey);

    let failure: Error;
    try {
      const headers: Record<string, string> = { ...authorization };
      if (cached && !call.refresh) headers['if-none-match'] = cached.etag;
      const answer = await requestWithin(fetchImpl, `${baseUrl}/api/sdk/config?${query}`, { headers }, call.timeoutMs ?? timeoutMs, async (response) => {
        if (response.status === 200) return { paywall: await readPaywall(response, paywallId), etag: response.headers.get('etag') };
        if (response.status === 304) return { paywall: undefined, etag: response.headers.get('etag') };
        throw await errorOf(response);
      });
      if (answer.paywall) {
        if (answer.etag) await cache.put(paywallId, requestKey, { etag: answer.etag, paywall: answer.paywall, at: Date.now() });
        return shown({ source: 'network', paywall: answer.paywall });
      }
      if (cached) {
        await cache.put(paywallId, requestKey, { ...cached, at: Date.now() });
        return shown({ source: 'network', paywall: cached.paywall });
      }
      failure = new PaywalldError(304, 'unexpected_not_modified', 'the server answered 304 to a request without a cached answer');
    } catch (error) {
      // Only a missing answer, an overloaded or failing server fall back; a refusal (400, 401, 404) is the app's to see.
      const transient =
        error instanceof TransportError ||
        (error instanceof PaywalldError && (error.status >= 500 || error.status === 429 || error.code === 'invalid_response'));
      if (!transient) throw error;
      failure = error as Error;
    }
    await fallbacks.ready;
    const fallbackRevision = fallbacks.revision(paywallId);
    // Newer data wins: a cached answer older than the shipped bundle's revision gives way to it.
    if (cached && (fallbackRevision === undefined || cached.paywall.revision >= fallbackRevision)) {
      return shown({ source: 'cache', paywall: cached.paywall, error: failure });
    }
    const fallback = fallbacks.resolve(paywallId, locales, platform);
    if (fallback) return shown({ source: 'fallback', paywall: fallback, error: failure });
    throw new PaywalldError(0, 'unavailable', `paywall ${paywallId}: no answer from the server, nothing cached and not in the fallback bundle`, {
      cause: failure,
    });
  }

  async function refreshFallback(paywallIds: readonly string[], placementIds: readonly string[] = []): Promise<{ updated: boolean }> {
    await fallbacks.ready;
    const headers: Record<string, string> = { ...authorization };
    const etag = fallbacks.downloadedEtag();
    if (etag) headers['if-none-match'] = etag;
    const query = new URLSearchParams({ paywallId: paywallIds.join(',') });
    if (placementIds.length > 0) query.set('placement', placementIds.join(','));
    const url = `${baseUrl}/api/sdk/fallback?${query}`;
    const answer = await requestWithin(fetchImpl, url, { headers }, timeoutMs, async (response) => {
      if (response.status === 304) return undefined;
      if (response.status !== 200) throw await errorOf(response);
      return { etag: response.headers.get('etag') ?? '', bundle: checkBundle(await response.json()) };
    });
    if (!answer) return { updated: false };
    await fallbacks.saveDownloaded(answer.etag, answer.bundle);
    return { updated: true };
  }

  const client: PaywalldClient = {
    getPaywall,
    getPlacement,
    refreshFallback,
    track(event) {
      const last = typeof event.paywall_id === 'string' ? shownVariant.get(event.paywall_id) : undefined;
      const variant = event.variant_id ?? last?.id;
      const queued: QueuedEvent = { ...event, id: event.id ?? newEventId(), ts: event.ts ?? Date.now() };
      if (variant !== undefined) queued.variant_id = variant;
      const placement = event.placement === undefined && typeof event.paywall_id === 'string' ? shownPlacement.get(event.paywall_id) : undefined;
      if (placement !== undefined) queued.placement = placement;
      // An open of a placement's paywall counts towards its frequency caps on the device at once, before it is even sent.
      if (queued.type === 'screen_impression' && typeof queued.placement === 'string') opens.add(queued.placement, queued.ts);
      // The segment goes with the variant it chose: not onto an event about another variant.
      if (event.audience === undefined && last !== undefined && variant === last.id) queued.audience = last.audience;
      const userId = identity.current();
      if (event.user_id !== undefined || userId !== undefined) {
        if (event.user_id === undefined) queued.user_id = userId!;
        queue.enqueue(queued);
      } else {
        // An asynchronous storage is still being read: the event waits for the id it belongs to.
        void identity.ready.then(() => {
          queued.user_id = identity.current()!;
          queue.enqueue(queued);
        });
      }
      return queued;
    },
    identify: (userId) => identity.identify(userId),
    currentUserId: () => identity.current(),
    appAccountToken: (userId) => {
      const id = userId ?? identity.current();
      if (id === undefined) throw new Error('appAccountToken: no user yet (an asynchronous storage is still being read); pass the user id');
      return appAccountToken(id);
    },
    obfuscatedAccountId: (userId) => {
      const id = userId ?? identity.current();
      if (id === undefined) throw new Error('obfuscatedAccountId: no user yet (an asynchronous storage is still being read); pass the user id');
      return obfuscatedAccountId(id);
    },
    flush: async (flushOptions = {}) => {
      await identity.ready;
      return queue.flush(flushOptions.timeoutMs ?? 10_000);
    },
    close: (closeOptions = {}) => queue.close(closeOptions.timeoutMs ?? 10_000),
    rejectedEvents: () => queue.rejected(),
    queueStatus: () => queue.status(),
    firstViewedAt: (paywallId) => firstViewedAt(storage, paywallId),
  };
  return client;
}
