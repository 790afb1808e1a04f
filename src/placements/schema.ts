/**
 * The shapes of placements (docs/guide/placements.md): the document a client
 * writes with PUT /api/placements/{id} (validate.ts adds the checks a schema
 * cannot express), the management API's answers and the SDK's placement
 * answer.
 */
import * as v from 'valibot';
import { ActorSchema } from '../audit/schema.ts';
import { ResolvedPaywallSchema, SdkConfigQuerySchema } from '../paywalls/resolve/schema.ts';
import { IdSchema } from '../shared/id.ts';
import { ownRecord } from '../shared/record.ts';
import { storableText } from '../shared/text.ts';

/** The most rules a placement holds: each is tried per request, in order. */
const MAX_RULES = 100;
const MAX_HOLDOUT_PERCENT = 50;
export const MAX_FREQUENCY_LIMIT = 100;

const FREQUENCY_PERIODS = ['session', 'day', 'week', 'ever'] as const;
export type FrequencyPeriod = (typeof FREQUENCY_PERIODS)[number];

/** `default` naming no paywall. */
export const NO_DEFAULT = 'none';

const FrequencySchema = v.pipe(
  v.strictObject({
    limit: v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(1), v.maxValue(MAX_FREQUENCY_LIMIT)),
    per: v.pipe(
      v.picklist(FREQUENCY_PERIODS, `Must be one of ${FREQUENCY_PERIODS.join(', ')}`),
      v.description('session: since the app started its client; day: the UTC day (00:00 to 24:00 UTC); week: the ISO week (Monday 00:00 UTC on); ever'),
    ),
  }),
  v.description("Show the rule's paywall at most `limit` times per period: counted from the user's screen_impression events carrying this placement"),
);
export type Frequency = v.InferOutput<typeof FrequencySchema>;

const RuleSchema = v.strictObject({
  audience: v.optional(
    v.pipe(
      ownRecord(v.string(), v.unknown()),
      v.description("A GrowthBook-style condition on the request's attributes and the server's purchases.* facts; absent: every user"),
    ),
  ),
  paywall_id: v.pipe(IdSchema, v.description('The paywall shown to the users this rule decides for')),
  holdout_percent: v.optional(
    v.pipe(
      v.number(),
      v.finite(),
      v.minValue(0),
      v.maxValue(MAX_HOLDOUT_PERCENT),
      // Checked on the hundredths, not with `%`: 10 % 0.01 is not 0 in floating point.
      v.check((percent) => Math.abs(percent * 100 - Math.round(percent * 100)) < 1e-9, 'Must be a multiple of 0.01 (users are hashed into 10,000 buckets)'),
      v.description("The share of users (by a hash of the placement and userId) who never see this rule's paywall: the control of the results"),
    ),
  ),
  frequency: v.optional(FrequencySchema),
});

/** The document a client writes with PUT; validatePlacement adds the checks a schema cannot express. */
export const PlacementSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(200), storableText()),
  rules: v.pipe(
    v.array(RuleSchema),
    v.maxLength(MAX_RULES, `At most ${MAX_RULES} rules`),
    v.description('Tried in order: the first whose audience matches decides'),
  ),
  default: v.optional(
    v.pipe(v.union([v.literal(NO_DEFAULT), IdSchema]), v.description('The paywall shown when no rule matches, or "none" (the default): nothing')),
  ),
});
export type PlacementDocument = v.InferOutput<typeof PlacementSchema>;

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const RevisionNumber = v.pipe(v.number(), v.integer(), v.minValue(1));

export const PlacementInfoSchema = v.object({
  id: v.string(),
  name: v.pipe(v.string(), v.description('The name in the newest revision')),
  status: v.pipe(v.picklist(['active', 'archived']), v.description('active: served by GET /api/sdk/placement; archived: not served (a PUT brings it back)')),
  revision: v.pipe(RevisionNumber, v.description('The newest revision: the one served')),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type PlacementInfo = v.InferOutput<typeof PlacementInfoSchema>;

export const PlacementListSchema = v.object({ placements: v.array(PlacementInfoSchema) });

export const PlacementDetailSchema = v.object({ ...PlacementInfoSchema.entries, document: PlacementSchema });

const PlacementWarningSchema = v.object({ path: v.string(), code: v.string(), message: v.string() });
export type PlacementWarning = v.InferOutput<typeof PlacementWarningSchema>;

export const PlacementWrittenSchema = v.object({
  ...PlacementInfoSchema.entries,
  warnings: v.pipe(v.array(PlacementWarningSchema), v.description('What most likely is a mistake; the revision is stored and served anyway')),
});

const PlacementRevisionInfoSchema = v.object({
  revision: RevisionNumber,
  name: v.string(),
  created_at: Timestamp,
  created_by: ActorSchema,
});
export type PlacementRevisionInfo = v.InferOutput<typeof PlacementRevisionInfoSchema>;

export const PlacementRevisionListSchema = v.object({ revisions: v.array(PlacementRevisionInfoSchema) });
export const PlacementRevisionDetailSchema = v.object({ ...PlacementRevisionInfoSchema.entries, document: PlacementSchema });

/** Why GET /api/sdk/placement shows nothing. */
const NO_SHOW_REASONS = ['no_rule_matched', 'holdout', 'frequency_cap', 'paywall_not_live'] as const;
export type NoShowReason = (typeof NO_SHOW_REASONS)[number];

/** The answer of GET /api/sdk/placement. */
export const PlacementAnswerSchema = v.variant('show', [
  v.object({
    show: v.literal(true),
    placement: v.string(),
    rule: v.pipe(
      v.nullable(v.number()),
      v.description('The index of the rule that decided (0 is the first); null: no rule matched and the default paywall is shown'),
    ),
    frequency: v.pipe(
      v.nullable(FrequencySchema),
      v.description(
        "The rule's frequency cap: what the typed client counts on the device (the server counts for requests with a userId, session caps excepted)",
      ),
    ),
    paywall: v.pipe(ResolvedPaywallSchema, v.description('What GET /api/sdk/config answers for this paywall and request')),
  }),
  v.object({
    show: v.literal(false),
    placement: v.string(),
    reason: v.picklist(NO_SHOW_REASONS),
    rule: v.pipe(v.nullable(v.number()), v.description('The index of the rule that decided; null when none matched')),
    paywall_id: v.pipe(
      v.nullable(v.string()),
      v.description("The paywall the rule names (null when none matched): a holdout user's placement_holdout event names it"),
    ),
  }),
]);

const { paywallId: _asked, explain: _explain, ...asking } = SdkConfigQuerySchema.entries;

/** The query of GET /api/sdk/placement: /api/sdk/config's, with `placement` where it has `paywallId`. */
export const PlacementQuerySchema = v.object({
  placement: v.pipe(v.string(), v.maxLength(64), v.description('The placement asked for')),
  ...asking,
  explain: v.optional(
    v.pipe(v.picklist(['0', '1']), v.description("1 adds `explain` (each rule tried, the purchases.* facts used, the holdout's bucket); needs a secret key")),
  ),
});
