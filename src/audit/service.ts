import type { Logger } from '../log.ts';
import type { AuditEntry, AuditPage, AuditQuery } from './schema.ts';
import type { AuditRow, AuditStore } from './store.ts';

/** Entries on a page unless `limit` says otherwise. */
const DEFAULT_PAGE = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

function entryOf(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    project: row.project,
    actor: row.actor,
    action: row.action,
    target: row.target,
    ...(row.revision === undefined ? {} : { revision: row.revision }),
    ...(row.ip === null ? {} : { ip: row.ip }),
    summary: row.summary,
  };
}

/** Reading the audit log (the API, the CLI) and its retention. Nothing here writes an entry: the stores do, with each change. */
export class AuditLog {
  constructor(private readonly store: AuditStore) {}

  /** One page, newest first: a project's entries, or (undefined) every entry, those of no project included. */
  async page(project: string | undefined, query: AuditQuery): Promise<AuditPage> {
    const limit = query.limit ?? DEFAULT_PAGE;
    const { since, until, actor, action, target, cursor: before } = query;
    // One more than asked: whether it exists says whether there is a next page.
    const rows = await this.store.list({ project, since, until, actor, action, target, before, limit: limit + 1 });
    const entries = rows.slice(0, limit);
    return { entries: entries.map(entryOf), next_cursor: rows.length > limit ? String(entries.at(-1)!.seq) : null };
  }

  /**
   * `--audit-retention-days N`: deletes entries older than N days now and
   * once a day; the returned function stops it. Without the setting nothing
   * is ever deleted.
   */
  keepFor(days: number, log: Logger): () => void {
    const prune = () => {
      this.store.prune(Date.now() - days * DAY_MS).then(
        (deleted) => {
          if (deleted > 0) log.info('audit log pruned', { deleted, retention_days: days });
        },
        (error: unknown) => log.error('audit log pruning failed; trying again tomorrow', { error: error instanceof Error ? error.message : String(error) }),
      );
    };
    prune();
    const timer = setInterval(prune, DAY_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
