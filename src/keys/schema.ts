import * as v from 'valibot';
import { SCOPES } from './key.ts';

export const KeyCreateSchema = v.strictObject({ scope: v.picklist(SCOPES) });

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

export const KeyInfoSchema = v.object({
  id: v.string(),
  project_id: v.string(),
  scope: v.picklist(SCOPES),
  prefix: v.string(),
  created_at: Timestamp,
  revoked_at: v.nullable(Timestamp),
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
