import * as v from 'valibot';
import { parseInstant } from '../events/time.ts';
import { ACTIONS } from '../shared/change.ts';
import { storableText } from '../shared/text.ts';

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

export const ActorSchema = v.object({
  type: v.pipe(v.picklist(['user', 'key', 'cli']), v.description('a signed-in person, an API key, or the CLI on the database')),
  id: v.pipe(v.string(), v.description('the user id, the key id, or the operating-system account that ran the CLI')),
  label: v.pipe(v.string(), v.description("the person's email, the key's prefix, or the command")),
});

const AuditEntrySchema = v.object({
  id: v.string(),
  at: Timestamp,
  project: v.pipe(v.nullable(v.string()), v.description('null for what belongs to no project (a password, a throttled sign-in)')),
  actor: ActorSchema,
  action: v.picklist(ACTIONS),
  target: v.object({ type: v.string(), id: v.string() }),
  revision: v.optional(v.pipe(v.number(), v.description('the paywall revision written, published or rolled back to'))),
  ip: v.optional(v.pipe(v.string(), v.description('the client address of a change made over HTTP'))),
  summary: v.string(),
});
export type AuditEntry = v.InferOutput<typeof AuditEntrySchema>;

export const AuditPageSchema = v.object({
  entries: v.pipe(v.array(AuditEntrySchema), v.description('newest first')),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('pass as `cursor` for the next (older) page; null on the last page')),
});
export type AuditPage = v.InferOutput<typeof AuditPageSchema>;

const TIME_HELP = 'an ISO date (a whole UTC day), an ISO date-time with a zone, or epoch milliseconds';

function instant(edge: 'start' | 'end') {
  return v.pipe(
    v.string(),
    v.description(`${edge === 'start' ? 'from' : 'up to and including'} ${TIME_HELP}`),
    v.transform((value) => parseInstant(value, edge)),
    v.number(`must be ${TIME_HELP}`),
  );
}

const MAX_PAGE = 200;

export const AuditQuerySchema = v.object({
  since: v.optional(instant('start')),
  until: v.optional(instant('end')),
  actor: v.optional(v.pipe(v.string(), v.maxLength(320), storableText(), v.description('an actor id: a user id, a key id or a CLI account'))),
  action: v.optional(v.picklist(ACTIONS)),
  target: v.optional(v.pipe(v.string(), v.maxLength(320), storableText(), v.description('a target id: a paywall, product, key, member or connector'))),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/, 'must be a next_cursor of an earlier page'), v.transform(Number))),
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,2}$/, `must be 1 to ${MAX_PAGE}`), v.transform(Number), v.maxValue(MAX_PAGE, `must be 1 to ${MAX_PAGE}`)),
  ),
});
export type AuditQuery = v.InferOutput<typeof AuditQuerySchema>;
