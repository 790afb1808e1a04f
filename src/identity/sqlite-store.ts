import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import { appAccountToken } from './app-account-token.ts';
import { type IdentityStore, type LinkOutcome, type LinkRequest, MAX_LINKS_PER_PROJECT, MAX_LINKS_PER_USER, type StoredLink } from './store.ts';

/** Users of the event dictionary hashed per statement while catching up: bounds one pause of the request thread. */
const CATCH_UP_PAGE = 5000;

/** The statements that write links and tokens, which PurchaseStore.insert runs inside its own transaction as well. */
export class IdentityWrites {
  private readonly insertLink;
  private readonly insertToken;
  private readonly ofUser;
  private readonly ofProject;

  constructor(db: Database) {
    this.insertLink = db.prepare<{ projectId: string; id: string; userId: string; now: number }>(
      `INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq)
       VALUES (:projectId, :id, :userId, :now, (SELECT coalesce(max(seq), 0) + 1 FROM user_links WHERE project_id = :projectId))
       ON CONFLICT DO NOTHING`,
    );
    this.insertToken = db.prepare<[string, string, string]>('INSERT INTO user_tokens (project_id, token, user_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    this.ofUser = db.prepare<[string, string], number>('SELECT count(*) FROM user_links WHERE project_id = ? AND user_id = ?').pluck();
    // A project's seqs are 1, 2, 3…: links are never deleted, so the newest is the count.
    this.ofProject = db.prepare<[string], number>('SELECT coalesce(max(seq), 0) FROM user_links WHERE project_id = ?').pluck();
  }

  /** Whether a new link to the user would pass a limit: MAX_LINKS_PER_USER, or MAX_LINKS_PER_PROJECT. */
  full(projectId: string, userId: string): boolean {
    return this.ofUser.get(projectId, userId)! >= MAX_LINKS_PER_USER || this.ofProject.get(projectId)! >= MAX_LINKS_PER_PROJECT;
  }

  /** Links the id to the user unless it is linked already or a limit is reached (a store's aliases past it are not linked); true when this call linked it. */
  link(projectId: string, id: string, userId: string, now: number): boolean {
    if (this.full(projectId, userId)) return false;
    return this.insertLink.run({ projectId, id, userId, now }).changes === 1;
  }

  /** Records the appAccountToken of each user. */
  remember(projectId: string, userIds: Iterable<string>): void {
    for (const userId of userIds) this.insertToken.run(projectId, appAccountToken(userId), userId);
  }
}

/** The checks of a link made with the sdk key, before it is written (docs/guide/revenue.md, "Who can link"). */
class SdkLinkRule {
  private readonly hasPurchases;
  private readonly isUser;

  constructor(db: Database) {
    this.hasPurchases = db.prepare<[string, string], number>('SELECT 1 FROM purchases WHERE project_id = ? AND user_id = ? LIMIT 1').pluck();
    this.isUser = db.prepare<[string, string], number>('SELECT 1 FROM user_links WHERE project_id = ? AND user_id = ? LIMIT 1').pluck();
  }

  /** Whether only a secret key may link this anonymous id: it has purchase records, or other ids are linked to it. */
  protects(projectId: string, anonymousId: string): boolean {
    return this.hasPurchases.get(projectId, anonymousId) !== undefined || this.isUser.get(projectId, anonymousId) !== undefined;
  }
}

export class SqliteIdentityStore implements IdentityStore {
  readonly link;
  readonly links;
  readonly linksAfter;
  readonly userOfAppAccountToken;
  readonly catchUpWithEventUsers;

  constructor(db: Database) {
    const writes = new IdentityWrites(db);
    const linkOf = db.prepare<[string, string], string>('SELECT user_id FROM user_links WHERE project_id = ? AND anonymous_id = ?').pluck();
    const linksOfProject = db.prepare<[string], { anonymous_id: string; user_id: string }>('SELECT anonymous_id, user_id FROM user_links WHERE project_id = ?');
    const after = db.prepare<[string, number, number], StoredLink>(
      'SELECT seq, anonymous_id AS anonymousId, user_id AS userId FROM user_links WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    const userOfToken = db.prepare<[string, string], string>('SELECT user_id FROM user_tokens WHERE project_id = ? AND token = ?').pluck();
    const progressOf = db.prepare<[string], number>('SELECT ordinal FROM user_token_progress WHERE project_id = ?').pluck();
    const setProgress = db.prepare<[string, number]>(
      'INSERT INTO user_token_progress (project_id, ordinal) VALUES (?, ?) ON CONFLICT (project_id) DO UPDATE SET ordinal = excluded.ordinal',
    );
    const eventUsers = db.prepare<[string, number, number], { ordinal: number; user_id: string }>(
      'SELECT ordinal, user_id FROM event_users WHERE project_id = ? AND ordinal >= ? ORDER BY ordinal LIMIT ?',
    );
    const rule = new SdkLinkRule(db);
    this.link = sqliteWrite(db, (requests: readonly LinkRequest[], now: number): LinkOutcome[] =>
      requests.map(({ projectId, anonymousId, userId, secret }) => {
        const linked = linkOf.get(projectId, anonymousId);
        if (linked !== undefined) return { userId: linked, created: false };
        if (!secret && rule.protects(projectId, anonymousId)) return { refused: 'link_needs_secret_key' };
        if (writes.full(projectId, userId)) return { refused: 'too_many_links' };
        writes.link(projectId, anonymousId, userId, now);
        writes.remember(projectId, [anonymousId, userId]);
        return { userId, created: true };
      }),
    );
    this.links = sqliteRead(db, (projectId: string) => new Map(linksOfProject.all(projectId).map((row) => [row.anonymous_id, row.user_id])));
    this.linksAfter = sqliteRead(db, (projectId: string, seq: number, limit: number): StoredLink[] => after.all(projectId, seq, limit));
    this.userOfAppAccountToken = sqliteRead(db, (projectId: string, token: string): string | undefined => userOfToken.get(projectId, token.toLowerCase()));
    this.catchUpWithEventUsers = sqliteWrite(db, (projectId: string): boolean => {
      const from = progressOf.get(projectId) ?? 0;
      const users = eventUsers.all(projectId, from, CATCH_UP_PAGE);
      if (users.length === 0) return false;
      writes.remember(
        projectId,
        users.map((user) => user.user_id),
      );
      setProgress.run(projectId, users.at(-1)!.ordinal + 1);
      return users.length === CATCH_UP_PAGE;
    });
  }
}
