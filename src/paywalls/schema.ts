/** Request and response shapes of the paywall management API; the document itself is ./document/schema.ts. */
import * as v from 'valibot';
import { ActorSchema } from '../audit/schema.ts';
import { PaywallSchema } from './document/schema.ts';

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const RevisionNumber = v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(1));

const PAYWALL_STATUSES = ['draft', 'live', 'archived'] as const;

export const PaywallInfoSchema = v.object({
  id: v.string(),
  name: v.pipe(v.string(), v.description('The name in the newest revision')),
  status: v.pipe(
    v.picklist(PAYWALL_STATUSES),
    v.description('draft: never published; live: a revision is served; archived: not served (publishing again restores it)'),
  ),
  revision: v.pipe(RevisionNumber, v.description('The newest revision')),
  live_revision: v.pipe(v.nullable(RevisionNumber), v.description('The revision the SDK endpoint serves (while not archived)')),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type PaywallInfo = v.InferOutput<typeof PaywallInfoSchema>;

export const PaywallListSchema = v.object({ paywalls: v.array(PaywallInfoSchema) });
export type PaywallList = v.InferOutput<typeof PaywallListSchema>;

export const PaywallDetailSchema = v.object({
  ...PaywallInfoSchema.entries,
  document: v.pipe(PaywallSchema, v.description('The newest revision, defaults filled in')),
});
export type PaywallDetail = v.InferOutput<typeof PaywallDetailSchema>;

export const PaywallWarningSchema = v.object({ path: v.string(), code: v.string(), message: v.string() });
export type WarningInfo = v.InferOutput<typeof PaywallWarningSchema>;

export const PaywallWrittenSchema = v.object({
  ...PaywallInfoSchema.entries,
  warnings: v.pipe(v.array(PaywallWarningSchema), v.description('What a valid paywall most likely should have; the revision is stored anyway')),
});
export type PaywallWritten = v.InferOutput<typeof PaywallWrittenSchema>;

/** The optional body of POST /api/paywalls/{id}/publish. */
export const PublishSchema = v.strictObject({
  revision: v.optional(v.pipe(RevisionNumber, v.description('Default: the newest. An older one is a rollback'))),
  new_phase: v.optional(v.pipe(v.boolean(), v.description('Start a new experiment phase even if the split (variants, weights, audiences) is unchanged'))),
  reseed: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Default true: a phase this publish starts gets a seed of its own (users randomized afresh); false keeps the current seed (users stay in their variants)',
      ),
    ),
  ),
});

/** The answer of POST /api/paywalls/{id}/publish: the paywall, and the experiment phase now current. */
export const PublishedSchema = v.object({
  ...PaywallInfoSchema.entries,
  phase: v.object({
    number: v.number(),
    started: v.pipe(v.boolean(), v.description('true: this publish started the phase (results start empty; earlier events are in the phase before)')),
    seed: v.pipe(v.string(), v.description("the seed users are hashed with in this phase: the paywall's seed and the phase's suffix")),
  }),
  warnings: v.pipe(
    v.array(PaywallWarningSchema),
    v.description(
      'What the live revision most likely should have, checked as of this publish (a slot without a store id on a platform the project sells on, …)',
    ),
  ),
});
export type Published = v.InferOutput<typeof PublishedSchema>;

const RevisionInfoSchema = v.object({
  revision: RevisionNumber,
  name: v.string(),
  created_at: Timestamp,
  published_at: v.pipe(v.nullable(Timestamp), v.description('When it was last made live')),
  live: v.boolean(),
  created_by: v.pipe(v.nullable(ActorSchema), v.description('who wrote it; null for revisions written before paywalld kept it')),
});
export type RevisionInfo = v.InferOutput<typeof RevisionInfoSchema>;

export const RevisionListSchema = v.object({ revisions: v.array(RevisionInfoSchema) });
export type RevisionList = v.InferOutput<typeof RevisionListSchema>;

export const RevisionDetailSchema = v.object({
  ...RevisionInfoSchema.entries,
  starts_phase: v.pipe(
    v.boolean(),
    v.description(
      'Whether publishing this revision now (without new_phase) starts an experiment phase: its split (variants, weights, holdouts, control, audiences with their conditions and weights) differs from the current phase, or no phase has started yet. The rule the publish applies; a new phase starts empty results and randomizes users afresh.',
    ),
  ),
  document: PaywallSchema,
});
export type RevisionDetail = v.InferOutput<typeof RevisionDetailSchema>;
