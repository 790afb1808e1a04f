/**
 * paywalld's client: resolves paywalls with ETag revalidation, a cache and an
 * offline fallback bundle, and sends events through a persisted queue that
 * delivers each exactly once. No dependencies; runs where fetch runs.
 * docs/reference/client.md describes it.
 */

export { APP_ACCOUNT_TOKEN_NAMESPACE, appAccountToken, obfuscatedAccountId } from './app-account-token.ts';
export type { ClientOptions, GetPaywallOptions, Paywall, PaywalldClient, PaywallResult, Platform, ShippedBundle, TrackEvent } from './client.ts';
export { createClient } from './client.ts';
export type {
  ButtonNode,
  ComponentNode,
  CountdownNode,
  IconNode,
  ImageNode,
  Label,
  LinkNode,
  PackageGroupNode,
  PackageNode,
  PagesNode,
  ProductNode,
  PurchaseButtonNode,
  ShowIf,
  SlotProduct,
  SpacerNode,
  StackNode,
  TextNode,
  TextStyle,
  ToggleNode,
  VideoNode,
} from './component-node.ts';
export { PaywalldError } from './errors.ts';
export { type CurrencyCode, type CustomEventType, customEventType, type EventType } from './event-types.ts';
export type { QueuedEvent, QueueStatus, RejectedEvent } from './events.ts';
export type { NoShowReason, PlacementResult } from './placement-result.ts';
export { type ClientStorage, memoryStorage } from './storage.ts';
export type {
  EventInput,
  FallbackBundle,
  FallbackPaywall,
  FallbackPlacement,
  IngestResult,
  KnownEventType,
  PlacementAnswer,
  RejectionCode,
  ResolvedPaywall,
} from './types.generated.ts';
