/** Request and response shapes of the draft endpoints: checks and previews of a document that is not stored. */
import * as v from 'valibot';
import { IdSchema } from '../../shared/id.ts';
import { LocaleSchema } from '../document/primitives.ts';
import { PaywallWarningSchema } from '../schema.ts';

export const DraftValidationSchema = v.object({
  valid: v.literal(true),
  warnings: v.pipe(v.array(PaywallWarningSchema), v.description('What a valid paywall most likely should have, as a PUT would answer')),
});
export type DraftValidation = v.InferOutput<typeof DraftValidationSchema>;

const PREVIEW_PLATFORMS = ['ios', 'android', 'web'] as const;

export const PreviewRequestSchema = v.strictObject({
  document: v.pipe(
    v.unknown(),
    v.description('A paywall document as PUT /api/paywalls/{id} takes it (a draft being edited, or a stored revision); validated the same way'),
  ),
  variant: v.optional(v.pipe(IdSchema, v.description('The variant to render; default: the one a user without userId gets'))),
  locale: v.optional(v.pipe(LocaleSchema, v.description("Default: the document's default locale"))),
  platform: v.optional(v.pipe(v.picklist(PREVIEW_PLATFORMS), v.description("Picks each product's store id"))),
  country: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z]{2}$/, 'Must be a two-letter country code'), v.description('For audiences'))),
});
export type PreviewRequest = v.InferOutput<typeof PreviewRequestSchema>;
