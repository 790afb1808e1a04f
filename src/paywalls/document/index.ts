/** The paywall document: its schemas and its write-time validation. Pure: no HTTP, no SQL. */
export { COMPONENT_TYPES, type ComponentNode, ComponentNodeSchema } from './components.ts';
export { type PaywallInput, type PaywallOutput, PaywallSchema } from './schema.ts';
export { type DocumentError, type PaywallDeps, type PaywallValidation, validatePaywall } from './validate.ts';
export type { PaywallWarning, PaywallWarningCode } from './warnings.ts';
