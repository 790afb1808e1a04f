import { type ClientStorage, readJsonItem, STORAGE_PREFIX } from './storage.ts';

const KEY_PREFIX = `${STORAGE_PREFIX}first-view:`;

/**
 * When this user first saw a paywall (ms since the epoch), kept in the
 * client's storage: a countdown with duration_seconds runs from it, so it
 * does not start again at every launch. The first call for a paywall
 * records now; a storage that cannot keep it (lost, unwritable) gives now.
 */
export async function firstViewedAt(storage: ClientStorage, paywallId: string): Promise<number> {
  const key = `${KEY_PREFIX}${paywallId}`;
  const kept = await readJsonItem<unknown>(storage, key);
  if (typeof kept === 'number' && Number.isFinite(kept)) return kept;
  const now = Date.now();
  try {
    await storage.setItem(key, JSON.stringify(now));
  } catch {
    // Not kept: the countdown runs from this view, and may start again at the next.
  }
  return now;
}
