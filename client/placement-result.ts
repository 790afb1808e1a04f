import type { Paywall } from './client.ts';
import type { PlacementAnswer } from './types.generated.ts';

/** Why getPlacement shows nothing: the server's reasons, and `offline` when the bundle's rules need what only the server knows. */
export type NoShowReason = Extract<PlacementAnswer, { show: false }>['reason'] | 'offline';

/** What getPlacement answers: the paywall to show (where the answer came from, as getPaywall says it), or why none. */
export type PlacementResult =
  | { show: true; placement: string; rule: number | null; paywall: Paywall; source: 'network' | 'cache' | 'fallback'; error?: Error }
  | { show: false; placement: string; reason: NoShowReason; source: 'network' | 'cache' | 'fallback'; error?: Error };
