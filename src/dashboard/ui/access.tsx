/**
 * What the signed-in person's role allows in the project shown (the
 * server's own table: shared/roles.ts), so that pages hide or disable what
 * it does not, saying why, instead of letting a click end in a 403. A
 * secret key may do everything in its project: its role is null.
 */
import { createContext, type JSX } from 'preact';
import { useContext } from 'preact/hooks';
import { allows, type Permission, type Role, rolesAllowing } from '../../shared/roles.ts';

export const RoleContext = createContext<Role | null>(null);

export function useAccess(): { role: Role | null; can: (permission: Permission) => boolean } {
  const role = useContext(RoleContext);
  return { role, can: (permission) => role === null || allows(role, permission) };
}

/** Why something is not offered: what it needs, and the role the person has. */
export function NotAllowed({ permission, what }: { permission: Permission; what: string }): JSX.Element | null {
  const { role, can } = useAccess();
  if (can(permission)) return null;
  return (
    <p class="banner banner-info not-allowed" role="note">
      {what} needs the {rolesAllowing(permission)} role; you are {role} in this project.
    </p>
  );
}
