/**
 * People in tests: the first owner a fresh server's invitation signs up, the
 * members they invite, and the headers a signed-in browser sends (the
 * session cookie, the CSRF header, the project).
 */
import assert from 'node:assert/strict';
import type { Role } from '../../src/shared/roles.ts';
import type { TestServer } from './server.ts';

export const PASSWORD = 'correct horse battery';

export interface Person {
  email: string;
  password: string;
  userId: string;
  /** The session token, as the cookie carries it. */
  token: string;
}

/** The session cookie of a Set-Cookie header. */
export function sessionOf(response: Response): string {
  const cookie = response.headers.get('set-cookie') ?? '';
  const token = /paywalld_session=([^;]*)/.exec(cookie)?.[1];
  assert.ok(token, `no session cookie in: ${cookie}`);
  return token;
}

/** What a signed-in browser sends: the cookie, the header every change needs, and the project when one is named. */
export function asPerson(person: Pick<Person, 'token'>, project?: string): Record<string, string> {
  return { cookie: `paywalld_session=${person.token}`, 'x-paywalld-request': '1', ...(project === undefined ? {} : { 'x-paywalld-project': project }) };
}

/** The token of an invitation link (`…/dashboard/#/accept/TOKEN`). */
export function tokenOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

export async function accept(url: string, body: { token: string; password: string; email?: string; name?: string }): Promise<Response> {
  return fetch(`${url}/api/auth/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function signedUp(response: Response, email: string, password: string): Promise<Person> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return { email, password, userId: (JSON.parse(text) as { user: { id: string } }).user.id, token: sessionOf(response) };
}

/** Redeems an invitation token as `email` (a new account with PASSWORD, or the existing one's), signed in. */
export async function signUp(url: string, token: string, email: string): Promise<Person> {
  return signedUp(await accept(url, { token, password: PASSWORD, email, name: 'The Owner' }), email, PASSWORD);
}

/** Signs the first owner up with the invitation the server's first start made. */
export async function firstOwner(server: TestServer, email = 'owner@example.com'): Promise<Person> {
  return signUp(server.url, server.server.bootstrap!.invitation!.token, email);
}

export async function invite(url: string, by: Person, project: string, email: string, role: Role): Promise<string> {
  const response = await fetch(`${url}/api/projects/${project}/invitations`, {
    method: 'POST',
    headers: { ...asPerson(by), 'content-type': 'application/json' },
    body: JSON.stringify({ email, role }),
  });
  const text = await response.text();
  assert.equal(response.status, 201, text);
  return tokenOf((JSON.parse(text) as { url: string }).url);
}

/** A new member of the project with the role, signed in. */
export async function member(server: TestServer, owner: Person, role: Role, email = `${role}@example.com`): Promise<Person> {
  const token = await invite(server.url, owner, server.projectId, email, role);
  return signedUp(await accept(server.url, { token, password: PASSWORD }), email, PASSWORD);
}

export async function login(url: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });
}
