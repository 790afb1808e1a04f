/**
 * Where the client keeps what must survive an app restart: the event queue,
 * the last answer for each paywall, a downloaded fallback bundle. The shape
 * is that of localStorage and React Native's AsyncStorage, so either can be
 * passed as is; a file or a database works through the same three methods.
 */
export interface ClientStorage {
  getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** Keeps everything in memory: what the client uses when the app gives no storage (nothing survives a restart). */
export function memoryStorage(): ClientStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/** Every key the client writes starts with this. */
export const STORAGE_PREFIX = 'paywalld:';

/** Reads a JSON item, undefined when absent or unreadable (a storage that lost or mangled it is not an error for the app). */
export async function readJsonItem<T>(storage: ClientStorage, key: string): Promise<T | undefined> {
  try {
    return parseItem<T>(await storage.getItem(key));
  } catch {
    return undefined;
  }
}

/** readJsonItem, but at once (not a promise) when the storage answers synchronously, as localStorage and a file do. */
export function readJsonItemNow<T>(storage: ClientStorage, key: string): T | undefined | Promise<T | undefined> {
  let item: ReturnType<ClientStorage['getItem']>;
  try {
    item = storage.getItem(key);
  } catch {
    return undefined;
  }
  return typeof item === 'object' && item !== null ? Promise.resolve(item).then(parseItem<T>, () => undefined) : parseItem<T>(item);
}

function parseItem<T>(text: string | null | undefined): T | undefined {
  try {
    return typeof text === 'string' ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}
