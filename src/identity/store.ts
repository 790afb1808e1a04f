/**
 * One user across ids: the links `identify` made (the first link of an
 * anonymous id stays), and the appAccountToken of every user seen, so that
 * an App Store notification names its user. Tokens are written with the
 * records that name a user (identify here, purchases in PurchaseStore.insert)
 * and, for users only the events know, hashed from the event users
 * dictionary when a token is not found (what the last event checkpoint
 * holds: users of the last few seconds may not be there yet). The interface
 * every backend implements (sqlite-store.ts; CONTRIBUTING.md, "The storage
 * seam"): each method is one transaction.
 */

/** One `identify`: link `anonymousId` to `userId` in the project. */
export interface LinkRequest {
  projectId: string;
  anonymousId: string;
  userId: string;
  /** Made with a secret key (the app's backend), which may link what the sdk key may not (docs/guide/revenue.md, "Who can link"). */
  secret: boolean;
}

/**
 * The links one user may have (one per device or reinstall), and one
 * project: each link costs the writer thread about 250 bytes of memory
 * while results are read, and a user's links are joined one by one
 * (docs/guide/revenue.md, "Limits").
 */
export const MAX_LINKS_PER_USER = 1000;
export const MAX_LINKS_PER_PROJECT = 1_000_000;

/**
 * Why a link was refused: the anonymous id has purchase records, or other
 * ids are linked to it, and the request came with the sdk key; or the user
 * or the project has as many links as it may.
 */
type LinkRefusal = 'link_needs_secret_key' | 'too_many_links';

/** What became of a LinkRequest: the user its anonymous id is linked to and whether this request linked it, or why it was refused. */
export type LinkOutcome = { userId: string; created: boolean } | { refused: LinkRefusal };

/** A link as stored, numbered in its project's order of storage. */
export interface StoredLink {
  seq: number;
  anonymousId: string;
  userId: string;
}

export interface IdentityStore {
  /**
   * Links each anonymous id to its user unless it is linked already (then
   * answers the user it is linked to), in order, all in one transaction,
   * and remembers the appAccountTokens of the ids it links. With the sdk
   * key, an anonymous id with purchase records, or that other ids are
   * linked to, is refused: only the backend may move what it recorded. A
   * new link past MAX_LINKS_PER_USER or MAX_LINKS_PER_PROJECT is refused.
   */
  link(requests: readonly LinkRequest[], now: number): Promise<LinkOutcome[]>;
  /** anonymous id → user id, for every link of the project. */
  links(projectId: string): Promise<Map<string, string>>;
  /** The project's links stored after `seq`, in order of storage, at most `limit` (what results read: link-feed.ts). */
  linksAfter(projectId: string, seq: number, limit: number): Promise<StoredLink[]>;
  /** The user whose appAccountToken this is (any case), among those remembered. */
  userOfAppAccountToken(projectId: string, token: string): Promise<string | undefined>;
  /** Hashes one page of the event users not hashed yet; true when more remain. */
  catchUpWithEventUsers(projectId: string): Promise<boolean>;
}
