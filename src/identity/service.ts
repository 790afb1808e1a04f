import { DomainError } from '../shared/errors.ts';
import type { Identify, IdentifyResult } from './schema.ts';
import type { IdentityStore } from './store.ts';

/** Catch-up pages per token lookup at most: a project of millions of users is hashed over several notifications, not in one pause. */
const MAX_CATCH_UP_PAGES = 20;

/** One user across ids: identify's links and the App Store's appAccountToken. */
export class IdentityService {
  constructor(private readonly store: IdentityStore) {}

  /**
   * Links the anonymous id to the user; the first link of an anonymous id
   * wins, and `secret` (the app's backend) may link what the sdk key may
   * not (docs/revenue.md, "Who can link").
   */
  async identify(projectId: string, request: Identify, secret: boolean): Promise<IdentifyResult> {
    const [outcome] = await this.store.link([{ projectId, anonymousId: request.anonymous_id, userId: request.user_id, secret }], Date.now());
    if ('refused' in outcome!) {
      throw new DomainError(
        outcome.refused,
        "this anonymous_id has purchase records or other ids are linked to it: only a secret key (the app's backend) may link it",
      );
    }
    return { anonymous_id: request.anonymous_id, user_id: outcome!.userId, linked: outcome!.created };
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
