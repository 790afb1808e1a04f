/**
 * Token buckets keyed by a string (a client IP, an API key). Each key earns
 * `ratePerSecond` tokens up to `burst`; a request takes one. Buckets live in
 * memory only, and idle ones are dropped when the map grows past `maxKeys`,
 * so a flood of distinct clients cannot grow memory without bound.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** Requests refused so far (a /metrics counter). */
  refused = 0;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** 0 when the request may pass, else the whole seconds to wait before retrying. */
  take(key: string, now = performance.now()): number {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.evict(now);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    this.refused++;
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }

  private evict(now: number): void {
    const refillMs = (this.burst / this.ratePerSecond) * 1000;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= refillMs) this.buckets.delete(key);
    // Everyone is active: forgetting all buckets errs towards letting requests through.
    if (this.buckets.size >= this.maxKeys) this.buckets.clear();
  }
}
