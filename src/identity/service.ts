import type { Identify, IdentifyResult } from './schema.ts';
import type { IdentityStore } from './store.ts';

/** Catch-up pages per token lookup at most: a project of millions of users is hashed over several notifications, not in one pause. */
const MAX_CATCH_UP_PAGES = 20;

/** One user across ids: identify's links and the App Store's appAccountToken. */
export class IdentityService {
  constructor(private readonly store: IdentityStore) {}

  /** Links the anonymous id to the user; the first link of an anonymous id wins (docs/revenue.md). */
  async identify(projectId: string, request: Identify): Promise<IdentifyResult> {
    const { userId, created } = await this.store.link(projectId, request.anonymous_id, request.user_id, Date.now());
    return { anonymous_id: request.anonymous_id, user_id: userId, linked: created };
  }

  /** anonymous id → user id for every link of the project. */
  links(projectId: string): Promise<Map<string, string>> {
    return this.store.links(projectId);
  }

  /** The user an App Store appAccountToken stands for, if the server has seen that user. */
  async userOfAppAccountToken(projectId: string, token: string): Promise<string | undefined> {
    let found = await this.store.userOfAppAccountToken(projectId, token);
    for (let page = 0; found === undefined && page < MAX_CATCH_UP_PAGES; page++) {
      const more = await this.store.catchUpWithEventUsers(projectId);
      found = await this.store.userOfAppAccountToken(projectId, token);
      if (!more) break;
    }
    return found;
  }
}
