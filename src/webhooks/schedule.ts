/**
 * When a failed delivery is tried again (docs/guide/webhooks.md, "Deliveries and retries"):
 * exponential backoff from 10 seconds, three times longer each time up to
 * 4 hours, each delay moved by up to a fifth either way (jitter, so that
 * the deliveries of one outage do not all come back at once), for 24 hours
 * from the first attempt; a retry that would fall later is not made and the
 * delivery fails. `--webhooks-backoff-scale` multiplies every figure.
 */
const FIRST_DELAY_MS = 10_000;
const FACTOR = 3;
const MAX_DELAY_MS = 4 * 3_600_000;
const RETRY_WINDOW_MS = 24 * 3_600_000;
const JITTER = 0.2;

/** The delay after the `failed`-th failed attempt, before jitter and scale. */
export function nominalDelay(failed: number): number {
  return Math.min(FIRST_DELAY_MS * FACTOR ** (failed - 1), MAX_DELAY_MS);
}

/**
 * When to try again after the `failed`-th failed attempt, made at `now`, of
 * a delivery whose schedule began at `windowStart`; undefined when that
 * would be past the window: the delivery has failed.
 */
export function nextAttemptAt(failed: number, windowStart: number, now: number, scale: number, random: () => number = Math.random): number | undefined {
  const delay = nominalDelay(failed) * scale * (1 - JITTER + 2 * JITTER * random());
  const at = now + Math.max(1, Math.round(delay));
  return at > windowStart + RETRY_WINDOW_MS * scale ? undefined : at;
}
