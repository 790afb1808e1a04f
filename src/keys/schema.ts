import * as v from 'valibot';
import { SCOPES } from './key.ts';

export const KeyCreateSchema = v.strictObject({ scope: v.picklist(SCOPES) });
export type KeyCreateInput = v.InferOutput<typeof KeyCreateSchema>;

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

export const KeyInfoSchema = v.object({
  id: v.string(),
  project_id: v.string(),
  scope: v.picklist(SCOPES),
  prefix: v.string(),
  created_at: Timestamp,
  revoked_at: v.nullable(Timestamp),
});

export const CreatedKeySchema = v.object({
  id: v.string(),
  key: v.pipe(v.string(), v.description('the plain key; shown only in this response')),
  scope: v.picklist(SCOPES),
  prefix: v.string(),
});

export const KeyListSchema = v.object({ keys: v.array(KeyInfoSchema) });
