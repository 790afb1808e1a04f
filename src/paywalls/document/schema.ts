import * as v from 'valibot';
import { IdSchema } from '../../shared/id.ts';
import { ownRecord } from '../../shared/record.ts';
import { storableText } from '../../shared/text.ts';
import { ComponentNodeSchema } from './components.ts';
import { ExperimentSettingsSchema } from './experiment.ts';
import { LocaleSchema } from './primitives.ts';
import { ThemeSchema } from './theme.ts';

/** Weights are relative; the cap keeps their sum an exact integer whatever the number of variants. */
const MAX_WEIGHT = 1_000_000;

const WeightSchema = v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(0), v.maxValue(MAX_WEIGHT));

/** locale → string key → text. */
const StringsSchema = ownRecord(LocaleSchema, ownRecord(IdSchema, v.string()));

/** slot name → product id; whether the product exists is checked by validatePaywall. */
const SlotsSchema = ownRecord(IdSchema, v.pipe(v.string(), v.minLength(1, 'Must not be empty')));

/** Free-form JSON for the app (e.g. a theme name); paywalld only stores and serves it. */
const MetadataSchema = ownRecord(v.string(), v.unknown());

const VariantSchema = v.strictObject({
  id: IdSchema,
  weight: WeightSchema,
  /** Users in a holdout see no paywall; they measure the paywall's effect. */
  holdout: v.optional(v.boolean()),
  /** The variant experiment results compare the others against (default: the first listed); at most one. */
  control: v.optional(v.boolean()),
  root: v.optional(ComponentNodeSchema),
  /** Merged over the paywall's slots. */
  slots: v.optional(SlotsSchema),
  /** Merged over the paywall's strings, locale by locale. */
  strings: v.optional(StringsSchema),
  metadata: v.optional(MetadataSchema),
});

const AudienceSchema = v.strictObject({
  id: IdSchema,
  /** A GrowthBook-style condition on the request's attributes, checked by validateCondition. */
  when: ownRecord(v.string(), v.unknown()),
  /** variant id → weight for users who match; variants not named get weight 0. */
  weights: ownRecord(IdSchema, WeightSchema),
});

/** The document a client writes with PUT; validatePaywall adds the checks a schema cannot express. */
export const PaywallSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(200), storableText()),
  default_locale: LocaleSchema,
  /** Seed of the variant hash; the paywall id when absent. Changing it reshuffles every user. */
  seed: v.optional(v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(256))),
  strings: StringsSchema,
  slots: v.optional(SlotsSchema, () => ({})),
  metadata: v.optional(MetadataSchema),
  root: ComponentNodeSchema,
  variants: v.optional(v.pipe(v.array(VariantSchema), v.minLength(1, 'At least one variant is required')), () => [{ id: 'default', weight: 100 }]),
  /** Ordered: the first audience whose condition matches decides the weights. */
  audiences: v.optional(v.array(AudienceSchema), () => []),
  /** How experiment results are read (analysis, primary metric, target, windows); changing it starts no phase. */
  experiment: v.optional(ExperimentSettingsSchema),
  /** Colours (light and dark) and fonts the nodes reference as "@NAME". */
  theme: v.optional(ThemeSchema),
});

export type PaywallOutput = v.InferOutput<typeof PaywallSchema>;
/** The document as a client writes it, before the schema's defaults (the dashboard's draft). */
export type PaywallInput = v.InferInput<typeof PaywallSchema>;
