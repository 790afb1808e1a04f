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

export interface IdentityStore {
  /**
   * Links an anonymous id to a user unless it is linked already, and
   * remembers both ids' appAccountTokens; returns the user it is linked to
   * and whether this call linked it.
   */
  link(projectId: string, anonymousId: string, userId: string, now: number): Promise<{ userId: string; created: boolean }>;
  /** anonymous id → user id, for every link of the project. */
  links(projectId: string): Promise<Map<string, string>>;
  /** The user whose appAccountToken this is (any case), among those remembered. */
  userOfAppAccountToken(projectId: string, token: string): Promise<string | undefined>;
  /** Hashes one page of the event users not hashed yet; true when more remain. */
  catchUpWithEventUsers(projectId: string): Promise<boolean>;
}
