import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type * as v from 'valibot';
import type * as nodes from '../../client/component-node.ts';
import { GENERATED_FILE, generateTypes } from '../../client/generate-types.ts';
import type * as generated from '../../client/types.generated.ts';
import type { EventSchema, IngestResultSchema } from '../../src/events/schema.ts';
import type * as components from '../../src/paywalls/document/components.ts';
import type * as document from '../../src/paywalls/document/node-props.ts';
import type { FallbackBundleSchema, FallbackPaywallSchema, FallbackPlacementSchema } from '../../src/paywalls/fallback/schema.ts';
import type { ResolvedPaywallSchema, SdkConfigQuerySchema } from '../../src/paywalls/resolve/schema.ts';
import type { PlacementAnswerSchema } from '../../src/placements/schema.ts';

/** true exactly when A and B are the same type; `npm run typecheck` fails on any `false` below. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const sameTypes: [
  Equal<generated.ResolvedPaywall, v.InferOutput<typeof ResolvedPaywallSchema>>,
  Equal<generated.SdkConfigQuery, v.InferInput<typeof SdkConfigQuerySchema>>,
  Equal<generated.FallbackPaywall, v.InferOutput<typeof FallbackPaywallSchema>>,
  Equal<generated.FallbackBundle, v.InferOutput<typeof FallbackBundleSchema>>,
  Equal<generated.EventInput, v.InferInput<typeof EventSchema>>,
  Equal<generated.IngestResult, v.InferOutput<typeof IngestResultSchema>>,
  Equal<generated.FallbackPlacement, v.InferOutput<typeof FallbackPlacementSchema>>,
  Equal<generated.PlacementAnswer, v.InferOutput<typeof PlacementAnswerSchema>>,
] = [true, true, true, true, true, true, true, true];

/** A and B accept the same values (both ways assignable): intersections are not the same type as their flattening. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** A document node's props as resolve answers them: text_key becomes text (always there), alt_key becomes alt, badge_key becomes badge. */
type Resolved<P> = Omit<P, 'text_key' | 'alt_key' | 'badge_key' | 'text'> &
  ('text' extends keyof P ? { text: string } : 'text_key' extends keyof P ? { text: string } : unknown) &
  ('badge_key' extends keyof P ? { badge?: string } : unknown);

const sameNodes: [
  Same<nodes.ComponentNode['type'], (typeof components.COMPONENT_TYPES)[number]>,
  Same<NonNullable<nodes.ComponentNode['show_if']>, components.ShowIf>,
  Same<nodes.StackNode['props'], document.StackProps>,
  Same<nodes.TextNode['props'], Resolved<document.TextProps>>,
  Same<nodes.ImageNode['props'], Resolved<document.ImageProps>>,
  Same<nodes.ButtonNode['props'], Resolved<document.ButtonProps>>,
  Same<nodes.PurchaseButtonNode['props'], Resolved<document.PurchaseButtonProps>>,
  Same<nodes.ProductNode['props'], document.ProductProps>,
  Same<NonNullable<nodes.SpacerNode['props']>, document.SpacerProps>,
  Same<nodes.IconNode['props'], document.IconProps>,
  Same<nodes.LinkNode['props'], Resolved<document.LinkProps>>,
  Same<nodes.PackageGroupNode['props'], document.PackageGroupProps>,
  Same<nodes.PackageNode['props'], Resolved<document.PackageProps>>,
  Same<nodes.ToggleNode['props'], Resolved<document.ToggleProps>>,
  Same<nodes.PagesNode['props'], document.PagesProps>,
  Same<nodes.CountdownNode['props'], Resolved<document.CountdownProps>>,
  Same<nodes.VideoNode['props'], document.VideoProps>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];

test("the typed tree (ComponentNode) has the document schema's node types and props, as resolved", () => {
  assert.ok(sameNodes.every(Boolean));
});

test("the client types are the server schemas' types, and the committed file is what the generator prints", () => {
  assert.deepEqual(sameTypes, [true, true, true, true, true, true, true, true]);
  assert.equal(fs.readFileSync(GENERATED_FILE, 'utf8'), generateTypes(), 'client/types.generated.ts is stale: run node --import tsx client/generate-types.ts');
});
