import type { ChangeEntry } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';

/** The audit entries of the account stores' changes. */
const member = (projectId: string, userId: string) => ({ project: projectId, target: { type: 'member', id: userId } });

export function memberInvited(projectId: string, email: string | null, role: Role): ChangeEntry {
  const who = email ?? 'the holder of the first-start link';
  return { project: projectId, action: 'member.invited', target: { type: 'invitation', id: email ?? '' }, summary: `invited ${who} as ${role}` };
}

export function memberJoined(projectId: string, userId: string, email: string, role: Role): ChangeEntry {
  return { ...member(projectId, userId), action: 'member.joined', summary: `${email} joined as ${role}` };
}

export function memberChanged(projectId: string, userId: string, email: string, from: Role, to: Role): ChangeEntry {
  return { ...member(projectId, userId), action: 'member.changed', summary: `${email}: ${from} → ${to}` };
}

export function memberRemoved(projectId: string, userId: string, email: string, role: Role): ChangeEntry {
  return { ...member(projectId, userId), action: 'member.removed', summary: `removed ${email} (${role})` };
}

/** A user's own changes belong to no project. */
const user = (userId: string) => ({ project: null, target: { type: 'user', id: userId } });

export function passwordChanged(userId: string, email: string): ChangeEntry {
  return { ...user(userId), action: 'user.password_changed', summary: `${email} set a new password; their other sessions ended` };
}

export function passwordReset(userId: string, email: string): ChangeEntry {
  return { ...user(userId), action: 'user.password_reset', summary: `reset link issued for ${email}; their sessions ended` };
}

export function userRemoved(userId: string, email: string): ChangeEntry {
  return { ...user(userId), action: 'user.removed', summary: `removed the account ${email}, its roles and sessions` };
}

export function signInThrottled(what: string): ChangeEntry {
  return { project: null, action: 'sign_in.throttled', target: { type: 'sign_in', id: what }, summary: `sign-ins throttled: ${what}` };
}
