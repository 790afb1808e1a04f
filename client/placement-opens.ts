import { windowStart } from '../src/placements/frequency-window.ts';
import { type ClientStorage, readJsonItem, STORAGE_PREFIX } from './storage.ts';
import type { FallbackPlacement } from './types.generated.ts';

type FrequencyPeriod = NonNullable<FallbackPlacement['rules'][number]['frequency']>['per'];

const KEY = `${STORAGE_PREFIX}placement-opens`;
/** The newest opens kept per placement: a cap counts to at most 100. */
const KEPT = 100;

/**
 * The placements' opens on this device (docs/guide/placements.md, "Frequency
 * caps"): each screen_impression the app tracks for a paywall a placement
 * showed, kept in storage (the newest 100 per placement) for the day, week
 * and ever caps, and in memory since the client was created for session
 * caps. The server counts the same events for a request with a userId;
 * the device counts them before they are even sent.
 */
export class PlacementOpens {
  private opens: Record<string, number[]> = Object.create(null);
  private readonly session = new Map<string, number>();
  readonly ready: Promise<void>;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: ClientStorage,
    private readonly report: (error: unknown) => void,
  ) {
    this.ready = readJsonItem<Record<string, number[]>>(storage, KEY).then((stored) => {
      if (typeof stored !== 'object' || stored === null) return;
      for (const [placement, times] of Object.entries(stored)) {
        if (Array.isArray(times)) this.opens[placement] = [...times.filter((ts) => typeof ts === 'number'), ...(this.opens[placement] ?? [])];
      }
    });
  }

  /** One open of the placement at `ts`. */
  add(placement: string, ts: number): void {
    this.session.set(placement, (this.session.get(placement) ?? 0) + 1);
    const times = (this.opens[placement] ??= []);
    times.push(ts);
    times.sort((a, b) => a - b);
    if (times.length > KEPT) times.splice(0, times.length - KEPT);
    const snapshot = JSON.stringify(this.opens);
    this.writing = this.writing.then(() => this.storage.setItem(KEY, snapshot)).catch(this.report);
  }

  /** The opens of the placement in the current period of `per`. */
  count(placement: string, per: FrequencyPeriod, now = Date.now()): number {
    const since = windowStart(per, now);
    if (since === undefined) return this.session.get(placement) ?? 0;
    return (this.opens[placement] ?? []).filter((ts) => ts >= since).length;
  }
}
