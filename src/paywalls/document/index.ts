/** The paywall document: its schemas and its write-time validation. Pure: no HTTP, no SQL. */
export { COMPONENT_TYPES, type ComponentNode, ComponentNodeSchema } from './components.ts';
export { type PaywallOutput, PaywallSchema } from './schema.ts';
export { type DocumentError, type PaywallDeps, validatePaywall } from './validate.ts';
export type { PaywallWarning } from './warnings.ts';
