/** The `explain` object GET /api/sdk/config adds with explain=1 and a secret key: why this user got this answer. */
import * as v from 'valibot';
import { ResolvedPaywallSchema } from './schema.ts';

const ConditionResultSchema = v.object({
  path: v.pipe(v.string(), v.description('JSON pointer to the clause in the paywall document')),
  clause: v.pipe(v.record(v.string(), v.unknown()), v.description('The clause as written: {attribute: condition} or {$and|$or|$nor|$not: …}')),
  attribute: v.pipe(v.nullable(v.string()), v.description('The attribute the clause tests; null for $and, $or, $nor and $not')),
  value: v.pipe(v.unknown(), v.description('That attribute in this request (null when absent)')),
  result: v.boolean(),
});

const AudienceTrialSchema = v.object({
  id: v.string(),
  tried: v.pipe(v.boolean(), v.description('false for audiences after the first that matched: they are never evaluated')),
  matched: v.pipe(v.boolean(), v.description('Every clause held (false when not tried)')),
  conditions: v.array(ConditionResultSchema),
});

const BucketRangeSchema = v.object({
  variant: v.string(),
  weight: v.number(),
  buckets: v.pipe(v.tuple([v.number(), v.number()]), v.description('[first, end): the hash buckets (0 to 9,999) this variant receives')),
});

const ExplainSchema = v.object({
  revision: v.pipe(v.number(), v.description('The live revision explained')),
  attributes: v.pipe(
    v.record(v.string(), v.unknown()),
    v.description(
      "What audience conditions see: platform, country, locale, appVersion, userId, attr, and purchases (the server's facts of the user, when an audience tests them)",
    ),
  ),
  hash: v.pipe(
    v.nullable(
      v.object({
        seed: v.string(),
        user_id: v.string(),
        input: v.pipe(v.string(), v.description('seed + userId, the string hashed (GrowthBook hash v2)')),
        bucket: v.pipe(v.number(), v.description('0 to 9,999')),
        value: v.pipe(v.number(), v.description('bucket / 10,000, as GrowthBook reports it')),
      }),
    ),
    v.description('null without a userId'),
  ),
  audiences: v.array(AudienceTrialSchema),
  split: v.object({
    from: v.pipe(v.string(), v.description('"variants" (the paywall\'s weights) or "audience <id>"')),
    ranges: v.array(BucketRangeSchema),
  }),
  variant: v.object({ id: v.string(), holdout: v.boolean(), reason: v.string() }),
  locale: v.object({
    requested: v.array(v.string()),
    source: v.picklist(['locale', 'accept-language', 'none']),
    available: v.pipe(v.array(v.string()), v.description('The locales the variant has strings for')),
    walked: v.pipe(v.array(v.object({ tag: v.string(), available: v.boolean() })), v.description('Each tag tried, in order, until one was available')),
    chosen: v.string(),
    reason: v.string(),
  }),
});
export type Explain = v.InferOutput<typeof ExplainSchema>;

/** The resolve response as documented: `explain` is present only with explain=1 and a secret key. */
export const ExplainedPaywallSchema = v.object({
  ...ResolvedPaywallSchema.entries,
  explain: v.optional(v.pipe(ExplainSchema, v.description('Only with explain=1 and a secret key: how the variant and locale were chosen'))),
});
