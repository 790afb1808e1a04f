import * as v from 'valibot';
import { ROLES } from '../shared/roles.ts';
import { storableText } from '../shared/text.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password.ts';

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const RoleSchema = v.pipe(v.picklist(ROLES), v.description('owner, editor, analyst or viewer (docs/guide/teams.md)'));

export const EmailSchema = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('must be an email address'), storableText());
const NewPassword = v.pipe(
  v.string(),
  v.minLength(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`),
  v.maxLength(MAX_PASSWORD_LENGTH),
);
/** A password to check: any length up to the limit, so that a sign-in never says what the rules are. */
const GivenPassword = v.pipe(v.string(), v.maxLength(MAX_PASSWORD_LENGTH));
const Name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100), storableText());
/** What the server hands out (token.ts): no other string is worth a lookup. */
const Token = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/, 'must be the token of an invitation link'));

export const LoginSchema = v.strictObject({ email: v.pipe(v.string(), v.maxLength(254)), password: GivenPassword });

export const AcceptSchema = v.strictObject({
  token: Token,
  password: v.pipe(GivenPassword, v.description(`a new account's password (at least ${MIN_PASSWORD_LENGTH} characters), or an existing account's own`)),
  email: v.optional(v.pipe(EmailSchema, v.description("the new owner's email, for an invitation made without one (a first start's)"))),
  name: v.optional(v.pipe(Name, v.description('how the new account is shown; its email by default'))),
});
export type Accept = v.InferOutput<typeof AcceptSchema>;

export const PasswordChangeSchema = v.strictObject({ current_password: GivenPassword, new_password: NewPassword });

export const InviteSchema = v.strictObject({ email: EmailSchema, role: RoleSchema });

export const MemberChangeSchema = v.strictObject({ role: RoleSchema });

const UserSchema = v.object({ id: v.string(), email: v.string(), name: v.string() });

export const MeSchema = v.object({
  user: UserSchema,
  projects: v.array(v.object({ id: v.string(), name: v.string(), role: RoleSchema })),
  session: v.object({
    expires_at: v.pipe(Timestamp, v.description('the session ends then whatever happens (7 days after signing in)')),
    idle_expires_at: v.pipe(Timestamp, v.description('the session ends then unless used before (12 hours after its last request)')),
  }),
});
export type Me = v.InferOutput<typeof MeSchema>;

export const MemberSchema = v.object({ ...UserSchema.entries, role: RoleSchema, joined_at: Timestamp });
export type Member = v.InferOutput<typeof MemberSchema>;

export const MemberListSchema = v.object({ members: v.array(MemberSchema) });
export type MemberList = v.InferOutput<typeof MemberListSchema>;

export const InvitationSchema = v.object({
  url: v.pipe(v.string(), v.description('the link to send: it signs its holder up (or in) with the role, once')),
  expires_at: Timestamp,
});
export type Invitation = v.InferOutput<typeof InvitationSchema>;

/** Passwords are checked by the schemas above; the CLI and the accept of a new account check with this too. */
export function passwordProblem(password: string): string | undefined {
  return v.safeParse(NewPassword, password).success ? undefined : `a password is at least ${MIN_PASSWORD_LENGTH} characters (at most ${MAX_PASSWORD_LENGTH})`;
}
