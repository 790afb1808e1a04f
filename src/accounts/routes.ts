import * as v from 'valibot';
import { changeOf, projectOf } from '../http/auth.ts';
import { empty, json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { clearedSessionCookie, sessionCookie, signedInOf } from '../http/session.ts';
import { invitationUrl, type Members } from './members.ts';
import {
  AcceptSchema,
  InvitationSchema,
  InviteSchema,
  LoginSchema,
  MemberChangeSchema,
  MemberListSchema,
  MemberSchema,
  MeSchema,
  PasswordChangeSchema,
} from './schema.ts';
import type { Sessions } from './sessions.ts';
import type { UserRow } from './store.ts';

const SignedInSchema = v.object({ user: v.object({ id: v.string(), email: v.string(), name: v.string() }) });

/** A new session's answer: who, and the cookie that carries it (never in the body: scripts cannot read it). */
function signedIn(token: string, user: UserRow, tls: boolean) {
  return json(200, { user: { id: user.id, email: user.email, name: user.name } }, { 'Set-Cookie': sessionCookie(token, tls), 'Cache-Control': 'no-store' });
}

/** Signing in and out, one's own account, and accepting an invitation (docs/guide/teams.md). */
export function authApi(sessions: Sessions, members: Members): RouteDefinition[] {
  return [
    route({
      method: 'POST',
      pattern: '/api/auth/login',
      maxBody: 4096,
      body: LoginSchema,
      doc: {
        operationId: 'signIn',
        errors: ['invalid_credentials', 'sign_in_throttled', 'database_unavailable'],
        summary: 'Sign in with an email and a password: sets the session cookie',
        tag: 'teams',
        auth: 'none',
        responses: { 200: { description: 'signed in; the session is in the paywalld_session cookie', schema: SignedInSchema } },
      },
      handler: async (req, { body }) => {
        const tls = req.tls;
        const { token, user } = await sessions.login(body.email, body.password, req.ip);
        return signedIn(token, user, tls);
      },
    }),
    route({
      method: 'POST',
      pattern: '/api/auth/accept',
      maxBody: 4096,
      body: AcceptSchema,
      doc: {
        operationId: 'acceptInvitation',
        errors: ['invitation_invalid', 'invalid_credentials', 'validation_failed', 'database_unavailable'],
        summary: 'Redeem an invitation or password-reset link: creates the account (or adds the role to yours) and signs in',
        tag: 'teams',
        auth: 'none',
        responses: { 200: { description: 'signed in; the session is in the paywalld_session cookie', schema: SignedInSchema } },
      },
      handler: async (req, { body }) => {
        const tls = req.tls;
        const { token, user } = await members.accept(body, req.ip);
        return signedIn(token, user, tls);
      },
    }),
    route({
      method: 'POST',
      pattern: '/api/auth/logout',
      doc: {
        operationId: 'signOut',
        errors: ['database_unavailable'],
        summary: 'Sign out: the session ends at once, on every instance',
        tag: 'teams',
        auth: 'session',
        responses: { 204: { description: 'signed out; the cookie is cleared' } },
      },
      handler: async (req) => {
        const tls = req.tls;
        await sessions.logout(signedInOf(req));
        return empty(204, { 'Set-Cookie': clearedSessionCookie(tls) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/auth/me',
      doc: {
        operationId: 'getSignedIn',
        errors: ['database_unavailable'],
        summary: 'Who is signed in, their projects and roles, and when the session ends',
        tag: 'teams',
        auth: 'session',
        responses: { 200: { description: 'the signed-in person', schema: MeSchema } },
      },
      handler: async (req) => json(200, await sessions.me(signedInOf(req)), { 'Cache-Control': 'no-store' }),
    }),
    route({
      method: 'POST',
      pattern: '/api/auth/password',
      maxBody: 4096,
      body: PasswordChangeSchema,
      doc: {
        operationId: 'changePassword',
        errors: ['invalid_credentials', 'validation_failed', 'database_unavailable'],
        summary: "Change one's password; every other session of the account ends",
        tag: 'teams',
        auth: 'session',
        responses: { 204: { description: 'changed' } },
      },
      handler: async (req, { body }) => {
        await sessions.changePassword(signedInOf(req), body.current_password, body.new_password, changeOf(req));
        return empty(204);
      },
    }),
  ];
}

/** A project's members and invitations; the edge checks that the key or the signed-in person is of the project in the path. */
export function membersApi(members: Members): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/projects/:project/members',
      doc: {
        operationId: 'listMembers',
        errors: ['database_unavailable'],
        summary: "The project's members and their roles",
        tag: 'teams',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'the members, oldest first', schema: MemberListSchema } },
      },
      handler: async (req) => json(200, { members: await members.list(projectOf(req)) }, { 'Cache-Control': 'no-store' }),
    }),
    route({
      method: 'POST',
      pattern: '/api/projects/:project/invitations',
      maxBody: 4096,
      body: InviteSchema,
      doc: {
        operationId: 'inviteMember',
        errors: ['already_member', 'validation_failed', 'database_unavailable'],
        summary: 'Invite someone with a role: a link valid 72 hours, once',
        tag: 'teams',
        auth: 'secret',
        access: 'administer',
        responses: { 201: { description: 'the link to send them', schema: InvitationSchema } },
      },
      handler: async (req, { body }) => {
        const origin = req.origin;
        const { token, expires_at } = await members.invite(projectOf(req), body.email, body.role, changeOf(req));
        return json(201, { url: invitationUrl(origin, token), expires_at }, { 'Cache-Control': 'no-store' });
      },
    }),
    route({
      method: 'PATCH',
      pattern: '/api/projects/:project/members/:user',
      maxBody: 1024,
      body: MemberChangeSchema,
      doc: {
        operationId: 'changeMember',
        errors: ['member_not_found', 'last_owner', 'database_unavailable'],
        summary: "Change a member's role; the last owner cannot be demoted",
        tag: 'teams',
        auth: 'secret',
        access: 'administer',
        responses: { 200: { description: 'the member', schema: MemberSchema } },
      },
      handler: async (req, { params, body }) => json(200, await members.setRole(projectOf(req), params.user, body.role, changeOf(req))),
    }),
    route({
      method: 'DELETE',
      pattern: '/api/projects/:project/members/:user',
      doc: {
        operationId: 'removeMember',
        errors: ['member_not_found', 'last_owner', 'database_unavailable'],
        summary: 'Remove a member: their requests in the project are refused from the next one; the last owner cannot be removed',
        tag: 'teams',
        auth: 'secret',
        access: 'administer',
        responses: { 204: { description: 'removed' } },
      },
      handler: async (req, { params }) => {
        await members.remove(projectOf(req), params.user, changeOf(req));
        return empty(204);
      },
    }),
  ];
}
