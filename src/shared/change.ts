/**
 * A change and its audit entry. Every store method that changes something
 * takes a `Change` (who, from where) and appends the entry saying what it
 * did in its own transaction, so that nothing changes without its entry and
 * no entry is written for a change that did not happen (CONTRIBUTING.md,
 * "The storage seam"; the log: src/audit/).
 */

/** Who made a change: a signed-in person, an API key, or the CLI on the database. */
export interface Actor {
  type: 'user' | 'key' | 'cli';
  /** A user id, a key id, or the operating-system account that ran the CLI. */
  id: string;
  /** What people read: an email, a key's prefix, `paywalld <command>`. */
  label: string;
}

export interface Change {
  actor: Actor;
  /** The client's address, for changes made over HTTP. */
  ip: string | null;
}

export const ACTIONS = [
  'project.created',
  'key.created',
  'key.revoked',
  'product.written',
  'product.deleted',
  'paywall.written',
  'paywall.published',
  'paywall.rolled_back',
  'paywall.archived',
  'connector.configured',
  'member.invited',
  'member.joined',
  'member.changed',
  'member.removed',
  'user.password_changed',
  'user.password_reset',
  'user.removed',
  'sign_in.throttled',
  'webhook.written',
  'webhook.deleted',
  'placement.written',
  'placement.archived',
  'event_names.cleared',
] as const;
export type Action = (typeof ACTIONS)[number];

/** What a change did, as its audit entry says it. */
export interface ChangeEntry {
  /** The project changed; null for what belongs to no project (a user's password, a throttled sign-in). */
  project: string | null;
  action: Action;
  target: { type: string; id: string };
  /** The paywall (or placement) revision written, published or rolled back to. */
  revision?: number;
  /** One line for people: what changed, never a secret. */
  summary: string;
}
