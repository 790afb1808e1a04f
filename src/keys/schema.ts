import * as v from 'valibot';
import { storableText } from '../shared/text.ts';
import { SCOPES } from './key.ts';

export const KeyCreateSchema = v.strictObject({
  scope: v.picklist(SCOPES),
  name: v.optional(v.pipe(v.string(), v.maxLength(100), storableText(), v.description('what the key is for: "iOS app", "CI"')), ''),
});

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

export const KeyInfoSchema = v.object({
  id: v.string(),
  project_id: v.string(),
  scope: v.picklist(SCOPES),
  prefix: v.string(),
  name: v.pipe(v.string(), v.description("what the key is for; '' when its creator did not say")),
  created_at: Timestamp,
  revoked_at: v.nullable(Timestamp),
  last_used_at: v.pipe(v.nullable(Timestamp), v.description('its last request, to the minute; null when never used')),
});
export type KeyInfo = v.InferOutput<typeof KeyInfoSchema>;

export const CreatedKeySchema = v.object({
  id: v.string(),
  key: v.pipe(v.string(), v.description('the plain key; shown only in this response')),
  scope: v.picklist(SCOPES),
  prefix: v.string(),
});
export type CreatedKey = v.InferOutput<typeof CreatedKeySchema>;

export const KeyListSchema = v.object({ keys: v.array(KeyInfoSchema) });
export type KeyList = v.InferOutput<typeof KeyListSchema>;
