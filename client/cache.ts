import { type ClientStorage, readJsonItem, STORAGE_PREFIX } from './storage.ts';
import type { ResolvedPaywall } from './types.generated.ts';

/** The last answer to one request (paywall, user, locale, platform, attributes) and the ETag that revalidates it. */
export interface CachedAnswer {
  etag: string;
  paywall: ResolvedPaywall;
  /** When it was received or last confirmed by a 304, epoch ms. */
  at: number;
}

type StoredAnswers = Record<string, CachedAnswer>;

/** Answers kept in memory; past it the oldest is forgotten. */
const MEMORY_ANSWERS = 200;
/** Answers kept in storage per paywall (one device rarely asks for more users or locales than that). */
const STORED_ANSWERS_PER_PAYWALL = 8;

/**
 * The answers of GET /api/sdk/config, in memory and in the app's storage (one
 * item per paywall), keyed by everything that can change the answer.
 */
export class PaywallCache {
  private readonly memory = new Map<string, CachedAnswer>();

  constructor(
    private readonly storage: ClientStorage,
    private readonly report: (error: unknown) => void,
  ) {}

  async get(paywallId: string, requestKey: string): Promise<CachedAnswer | undefined> {
    const key = `${paywallId}\n${requestKey}`;
    const inMemory = this.memory.get(key);
    if (inMemory) return inMemory;
    const stored = (await readJsonItem<StoredAnswers>(this.storage, this.storageKey(paywallId)))?.[requestKey];
    if (stored && typeof stored.etag === 'string' && stored.paywall?.paywall_id === paywallId) {
      this.remember(key, stored);
      return stored;
    }
    return undefined;
  }

  async put(paywallId: string, requestKey: string, answer: CachedAnswer): Promise<void> {
    this.remember(`${paywallId}\n${requestKey}`, answer);
    try {
      const stored = (await readJsonItem<StoredAnswers>(this.storage, this.storageKey(paywallId))) ?? {};
      stored[requestKey] = answer;
      const newest = Object.entries(stored)
        .sort(([, a], [, b]) => b.at - a.at)
        .slice(0, STORED_ANSWERS_PER_PAYWALL);
      await this.storage.setItem(this.storageKey(paywallId), JSON.stringify(Object.fromEntries(newest)));
    } catch (error) {
      // A full or failing storage costs the offline copy, never the answer in hand.
      this.report(error);
    }
  }

  private remember(key: string, answer: CachedAnswer): void {
    this.memory.delete(key);
    this.memory.set(key, answer);
    if (this.memory.size > MEMORY_ANSWERS) this.memory.delete(this.memory.keys().next().value!);
  }

  private storageKey(paywallId: string): string {
    return `${STORAGE_PREFIX}paywall:${paywallId}`;
  }
}
