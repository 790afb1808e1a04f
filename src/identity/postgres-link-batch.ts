/**
 * IdentityStore.link on PostgreSQL for a group of requests in a few round
 * trips, whatever its size: what each request needs (its anonymous id's
 * link, whether the sdk key may link it, the counts the limits read) is
 * read for the whole group at once, the requests are then decided in order
 * as SQLite decides them one by one (each seeing the links of those before
 * it), and the new links and tokens are inserted in one statement each. The
 * caller holds the purchases' advisory lock, which every transaction that
 * links or records a purchase holds: nothing read here changes before the
 * commit, and the project's next seqs are free.
 */
import type { Transaction } from '../db/postgres/connection.ts';
import { appAccountToken } from './app-account-token.ts';
import { type LinkOutcome, type LinkRequest, MAX_LINKS_PER_PROJECT, MAX_LINKS_PER_USER } from './store.ts';

/** The requests' (project, anonymous id) pairs as two arrays: $1 projects, $2 anonymous ids. */
const LINKED = `SELECT l.project_id, l.anonymous_id AS id, l.user_id FROM user_links l
  JOIN unnest($1::text[], $2::text[]) AS r(project_id, id) ON l.project_id = r.project_id AND l.anonymous_id = r.id`;
/** Anonymous ids with purchase records, or that other ids are linked to (docs/guide/revenue.md, "Who can link"). */
const PROTECTED = `SELECT r.project_id, r.id FROM unnest($1::text[], $2::text[]) AS r(project_id, id)
  WHERE EXISTS (SELECT 1 FROM purchases WHERE project_id = r.project_id AND user_id = r.id)
     OR EXISTS (SELECT 1 FROM user_links WHERE project_id = r.project_id AND user_id = r.id)`;
const USER_LINKS = `SELECT r.project_id, r.id, (SELECT count(*)::int FROM user_links WHERE project_id = r.project_id AND user_id = r.id) AS links
  FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::text[])) AS r(project_id, id)`;
/** A project's seqs are 1, 2, 3…: links are never deleted, so the newest is its count of links. */
const PROJECT_LINKS = `SELECT r.project_id, (SELECT coalesce(max(seq), 0) FROM user_links WHERE project_id = r.project_id) AS links
  FROM (SELECT DISTINCT unnest($1::text[])) AS r(project_id)`;

const key = (projectId: string, id: string) => `${projectId}\0${id}`;

export async function linkBatch(tx: Transaction, requests: readonly LinkRequest[], now: number): Promise<LinkOutcome[]> {
  const projects = requests.map((r) => r.projectId);
  const anonymous = requests.map((r) => r.anonymousId);
  // Sent together: the driver pipelines the queries of one connection.
  const [linked, protectedIds, userLinks, projectLinks] = await Promise.all([
    tx.unsafe<{ project_id: string; id: string; user_id: string }[]>(LINKED, [projects, anonymous]).execute(),
    tx.unsafe<{ project_id: string; id: string }[]>(PROTECTED, [projects, anonymous]).execute(),
    tx.unsafe<{ project_id: string; id: string; links: number }[]>(USER_LINKS, [projects, requests.map((r) => r.userId)]).execute(),
    tx.unsafe<{ project_id: string; links: number }[]>(PROJECT_LINKS, [projects]).execute(),
  ]);
  const userOf = new Map(linked.map((row) => [key(row.project_id, row.id), row.user_id]));
  const vouched = new Set(protectedIds.map((row) => key(row.project_id, row.id)));
  const perUser = new Map(userLinks.map((row) => [key(row.project_id, row.id), row.links]));
  const perProject = new Map(projectLinks.map((row) => [row.project_id, row.links]));
  const links: { project_id: string; anonymous_id: string; user_id: string; linked_at: number; seq: number }[] = [];
  const tokens = new Map<string, { project_id: string; token: string; user_id: string }>();
  const outcomes = requests.map(({ projectId, anonymousId, userId, secret }): LinkOutcome => {
    const existing = userOf.get(key(projectId, anonymousId));
    if (existing !== undefined) return { userId: existing, created: false };
    if (!secret && vouched.has(key(projectId, anonymousId))) return { refused: 'link_needs_secret_key' };
    const ofUser = perUser.get(key(projectId, userId)) ?? 0;
    const ofProject = perProject.get(projectId) ?? 0;
    if (ofUser >= MAX_LINKS_PER_USER || ofProject >= MAX_LINKS_PER_PROJECT) return { refused: 'too_many_links' };
    // What the requests after this one see.
    userOf.set(key(projectId, anonymousId), userId);
    vouched.add(key(projectId, userId));
    perUser.set(key(projectId, userId), ofUser + 1);
    perProject.set(projectId, ofProject + 1);
    links.push({ project_id: projectId, anonymous_id: anonymousId, user_id: userId, linked_at: now, seq: ofProject + 1 });
    for (const id of [anonymousId, userId]) tokens.set(key(projectId, id), { project_id: projectId, token: appAccountToken(id), user_id: id });
    return { userId, created: true };
  });
  if (links.length > 0) {
    await tx`INSERT INTO user_links ${tx(links, 'project_id', 'anonymous_id', 'user_id', 'linked_at', 'seq')}`;
    await tx`INSERT INTO user_tokens ${tx([...tokens.values()], 'project_id', 'token', 'user_id')} ON CONFLICT DO NOTHING`;
  }
  return outcomes;
}
