/**
 * Who may do what in a project (docs/guide/teams.md). Roles are not a ladder: an
 * analyst reads the audit log and exports that an editor does not, an editor
 * writes paywalls that an analyst does not. Each management route declares
 * the permission it needs (`doc.access`); the edge checks a signed-in
 * person's role against it, and the dashboard hides or disables what the
 * role cannot do from the same table. Free of valibot, so that the
 * dashboard can import it.
 */
export const ROLES = ['owner', 'editor', 'analyst', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const PERMISSIONS = ['view', 'analyze', 'edit', 'administer'] as const;
/**
 * - view: read configuration (products, paywalls, revisions) and results;
 * - analyze: read everything but secrets (exports, the audit log, keys and connectors as listed, members);
 * - edit: write, publish, roll back and archive products and paywalls;
 * - administer: keys, store connectors, members, purchase records.
 */
export type Permission = (typeof PERMISSIONS)[number];

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['view', 'analyze', 'edit', 'administer'],
  editor: ['view', 'edit'],
  analyst: ['view', 'analyze'],
  viewer: ['view'],
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function allows(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** The roles that hold a permission, for the refusal's message: "owner or analyst". */
export function rolesAllowing(permission: Permission): string {
  return ROLES.filter((role) => allows(role, permission)).join(' or ');
}
