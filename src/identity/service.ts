import type { Identify, IdentifyResult } from './schema.ts';
import type { SqliteIdentityStore as IdentityStore } from './sqlite-store.ts';

/** Catch-up pages per token lookup at most: a project of millions of users is hashed over several notifications, not in one pause. */
const MAX_CATCH_UP_PAGES = 20;

/** One user across ids: identify's links and the App Store's appAccountToken. */
export class IdentityService {
  constructor(private readonly store: IdentityStore) {}

  /** Links the anonymous id to the user; the first link of an anonymous id wins (docs/revenue.md). */
  identify(projectId: string, request: Identify): IdentifyResult {
    const { userId, created } = this.store.link(projectId, request.anonymous_id, request.user_id, Date.now());
    return { anonymous_id: request.anonymous_id, user_id: userId, linked: created };
  }

  /** Links other ids of a user (a store's aliases) as identify would, first link winning, in the caller's transaction. */
  linkAll(projectId: string, ids: readonly string[], userId: string, now: number): void {
    this.store.linkWithin(projectId, ids, userId, now);
  }

  /** anonymous id → user id for every link of the project. */
  links(projectId: string): Map<string, string> {
    return this.store.links(projectId);
  }

  /** Records that these users exist (their appAccountTokens), in the caller's transaction. */
  remember(projectId: string, userIds: Iterable<string>): void {
    this.store.rememberUsers(projectId, userIds);
  }

  /** The user an App Store appAccountToken stands for, if the server has seen that user. */
  userOfAppAccountToken(projectId: string, token: string): string | undefined {
    let found = this.store.userOfAppAccountToken(projectId, token);
    for (let page = 0; found === undefined && page < MAX_CATCH_UP_PAGES; page++) {
      const more = this.store.catchUpWithEventUsers(projectId);
      found = this.store.userOfAppAccountToken(projectId, token);
      if (!more) break;
    }
    return found;
  }
}
