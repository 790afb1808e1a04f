import { TransportError } from './errors.ts';

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * A request that gives up after `timeoutMs`, body included: the caller reads
 * the body inside `read`, so a server that sends headers and then stalls is
 * cut off too. Network errors and timeouts become a TransportError.
 */
export async function requestWithin<T>(
  fetchImpl: Fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await fetchImpl(url, { ...init, signal: controller.signal });
    return await read(response);
  } catch (error) {
    if (timedOut) throw new TransportError(`no answer within ${timeoutMs} ms`, true, { cause: error });
    if (error instanceof TypeError || (error as { name?: string } | null)?.name === 'AbortError') {
      throw new TransportError(`network error: ${(error as Error).message}`, false, { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds a Retry-After header asks to wait (delay-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
