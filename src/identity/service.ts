import { DomainError } from '../shared/errors.ts';
import type { Identify, IdentifyResult } from './schema.ts';
import { type IdentityStore, type LinkOutcome, type LinkRequest, MAX_LINKS_PER_PROJECT, MAX_LINKS_PER_USER } from './store.ts';

/**
 * Where identify's links are written: the event writer thread, which commits
 * them a group at a time on its own connection (IdentityStore.link there)
 * and answers once they are on disk (src/events/writer/link-queue.ts).
 */
interface LinkWriter {
  link(request: LinkRequest): Promise<LinkOutcome>;
}

// Messages made when a refusal happens: toLocaleString's first call loads ICU (about 15 ms), which every
// process that imports this module (each CLI run among them) would otherwise pay at start.
const REFUSALS = {
  link_needs_secret_key: () => "this anonymous_id has purchase records or other ids are linked to it: only a secret key (the app's backend) may link it",
  too_many_links: () =>
    `the user has ${MAX_LINKS_PER_USER.toLocaleString('en')} linked ids, or the project ${MAX_LINKS_PER_PROJECT.toLocaleString('en')}: no more can be linked`,
} as const;

/** Catch-up pages per token lookup at most: a project of millions of users is hashed over several notifications, not in one pause. */
const MAX_CATCH_UP_PAGES = 20;

/** One user across ids: identify's links and the App Store's appAccountToken. */
export class IdentityService {
  constructor(
    private readonly store: IdentityStore,
    private readonly writer: LinkWriter,
  ) {}

  /**
   * Links the anonymous id to the user; the first link of an anonymous id
   * wins, and `secret` (the app's backend) may link what the sdk key may
   * not (docs/guide/revenue.md, "Who can link").
   */
  async identify(projectId: string, request: Identify, secret: boolean): Promise<IdentifyResult> {
    const outcome = await this.writer.link({ projectId, anonymousId: request.anonymous_id, userId: request.user_id, secret });
    if ('refused' in outcome) throw new DomainError(outcome.refused, REFUSALS[outcome.refused]());
    return { anonymous_id: request.anonymous_id, user_id: outcome.userId, linked: outcome.created };
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
