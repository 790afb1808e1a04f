import * as v from 'valibot';
import { storableText } from '../shared/text.ts';

function id(what: string) {
  return v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(256, 'must be at most 256 characters'),
    storableText(),
    v.description(what),
  );
}

/** POST /api/sdk/identify. */
export const IdentifySchema = v.pipe(
  v.strictObject({
    anonymous_id: id('the id the client used before sign-in'),
    user_id: id('the signed-in user'),
  }),
  v.check((body) => body.anonymous_id !== body.user_id, 'anonymous_id and user_id must differ'),
);
export type Identify = v.InferOutput<typeof IdentifySchema>;

export const IdentifyResultSchema = v.object({
  anonymous_id: v.string(),
  user_id: v.pipe(v.string(), v.description('the user the anonymous id is linked to: the first link wins, so it may be an earlier one')),
  linked: v.pipe(v.boolean(), v.description('this request made the link (false: it existed already)')),
});
export type IdentifyResult = v.InferOutput<typeof IdentifyResultSchema>;
