import type { Database } from '../db/database.ts';
import { appAccountToken } from './app-account-token.ts';

/** Users of the event dictionary hashed per statement while catching up: bounds one pause of the request thread. */
const CATCH_UP_PAGE = 5000;

/**
 * One user across ids: the links `identify` made (the first link of an
 * anonymous id stays), and the appAccountToken of every user seen, so that
 * an App Store notification names its user. Tokens are written with the
 * records that name a user (identify, purchases) and, for users only the
 * events know, hashed from the event users dictionary when a token is not
 * found (what the last event checkpoint holds: users of the last few seconds may not be there yet).
 */
export class SqliteIdentityStore {
  private readonly insertLink;
  private readonly linkOf;
  private readonly linksOfProject;
  private readonly insertToken;
  private readonly userOfToken;
  private readonly progressOf;
  private readonly setProgress;
  private readonly eventUsers;
  private readonly linkTx;
  private readonly catchUpTx;

  constructor(db: Database) {
    this.insertLink = db.prepare<[string, string, string, number]>(
      'INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.linkOf = db.prepare<[string, string], string>('SELECT user_id FROM user_links WHERE project_id = ? AND anonymous_id = ?').pluck();
    this.linksOfProject = db.prepare<[string], { anonymous_id: string; user_id: string }>('SELECT anonymous_id, user_id FROM user_links WHERE project_id = ?');
    this.insertToken = db.prepare<[string, string, string]>('INSERT INTO user_tokens (project_id, token, user_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    this.userOfToken = db.prepare<[string, string], string>('SELECT user_id FROM user_tokens WHERE project_id = ? AND token = ?').pluck();
    this.progressOf = db.prepare<[string], number>('SELECT ordinal FROM user_token_progress WHERE project_id = ?').pluck();
    this.setProgress = db.prepare<[string, number]>(
      'INSERT INTO user_token_progress (project_id, ordinal) VALUES (?, ?) ON CONFLICT (project_id) DO UPDATE SET ordinal = excluded.ordinal',
    );
    this.eventUsers = db.prepare<[string, number, number], { ordinal: number; user_id: string }>(
      'SELECT ordinal, user_id FROM event_users WHERE project_id = ? AND ordinal >= ? ORDER BY ordinal LIMIT ?',
    );
    this.linkTx = db.transaction((projectId: string, anonymousId: string, userId: string, now: number) => {
      const created = this.insertLink.run(projectId, anonymousId, userId, now).changes === 1;
      this.rememberUsers(projectId, [anonymousId, userId]);
      return { userId: this.linkOf.get(projectId, anonymousId)!, created };
    });
    this.catchUpTx = db.transaction((projectId: string): boolean => {
      const from = this.progressOf.get(projectId) ?? 0;
      const users = this.eventUsers.all(projectId, from, CATCH_UP_PAGE);
      if (users.length === 0) return false;
      this.rememberUsers(
        projectId,
        users.map((user) => user.user_id),
      );
      this.setProgress.run(projectId, users.at(-1)!.ordinal + 1);
      return users.length === CATCH_UP_PAGE;
    });
  }

  /** Links an anonymous id to a user unless it is linked already; returns the user it is linked to and whether this call linked it. */
  link(projectId: string, anonymousId: string, userId: string, now: number): { userId: string; created: boolean } {
    return this.linkTx.immediate(projectId, anonymousId, userId, now);
  }

  /** Links each id to the user unless it is linked already, inside the caller's transaction (a store's aliases). */
  linkWithin(projectId: string, ids: readonly string[], userId: string, now: number): void {
    for (const id of ids) if (id !== userId) this.insertLink.run(projectId, id, userId, now);
    this.rememberUsers(projectId, [userId]);
  }

  /** anonymous id → user id, for every link of the project. */
  links(projectId: string): Map<string, string> {
    return new Map(this.linksOfProject.all(projectId).map((row) => [row.anonymous_id, row.user_id]));
  }

  /** Records the appAccountToken of each user (inside the caller's transaction when there is one). */
  rememberUsers(projectId: string, userIds: Iterable<string>): void {
    for (const userId of userIds) this.insertToken.run(projectId, appAccountToken(userId), userId);
  }

  /** The user whose appAccountToken this is, among those remembered. */
  userOfAppAccountToken(projectId: string, token: string): string | undefined {
    return this.userOfToken.get(projectId, token.toLowerCase());
  }

  /** Hashes one page of the event users not hashed yet; true when more remain. */
  catchUpWithEventUsers(projectId: string): boolean {
    return this.catchUpTx.immediate(projectId);
  }
}
