import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';
import { signInThrottled } from './account-entries.ts';
import type { Failure, SessionRow, SessionStore } from './session-store.ts';
import { throttledWhat } from './throttle.ts';

export class SqliteSessionStore implements SessionStore {
  readonly find;
  readonly create;
  readonly touch;
  readonly end;
  readonly failures;
  readonly recordFailure;
  readonly prune;

  constructor(db: Database, changes: SqliteChangeLog) {
    const session = db.prepare<[string], SessionRow>(
      `SELECT s.user_id, u.email, u.name, s.created_at, s.last_seen_at, s.expires_at FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.token_hash = ?`,
    );
    const roles = db.prepare<[string], { project_id: string; role: Role }>('SELECT project_id, role FROM memberships WHERE user_id = ?');
    const insert = db.prepare('INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)');
    const seen = db.prepare('UPDATE sessions SET last_seen_at = ? WHERE token_hash = ? AND last_seen_at < ?');
    const remove = db.prepare('DELETE FROM sessions WHERE token_hash = ?');
    const times = db.prepare<[string, number], number>('SELECT at FROM sign_in_failures WHERE subject = ? AND at >= ? ORDER BY at').pluck();
    const forget = db.prepare('DELETE FROM sign_in_failures WHERE subject = ? AND at < ?');
    const fail = db.prepare('INSERT INTO sign_in_failures (subject, at) VALUES (?, ?)');
    const expired = db.prepare('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?');
    const oldFailures = db.prepare('DELETE FROM sign_in_failures WHERE at < ?');

    this.find = sqliteRead(db, (tokenHash: string) => {
      const row = session.get(tokenHash);
      if (!row) return undefined;
      return { session: row, roles: roles.all(row.user_id).map((r): [string, Role] => [r.project_id, r.role]) };
    });
    this.create = sqliteWrite(db, (tokenHash: string, userId: string, now: number, expiresAt: number) => {
      insert.run(tokenHash, userId, now, now, expiresAt);
    });
    this.touch = sqliteWrite(db, (tokenHash: string, now: number) => {
      seen.run(now, tokenHash, now);
    });
    this.end = sqliteWrite(db, (tokenHash: string) => {
      remove.run(tokenHash);
    });
    this.failures = sqliteRead(db, (subjects: string[], since: number) => subjects.map((subject) => times.all(subject, since)));
    this.recordFailure = sqliteWrite(db, (failure: Failure, since: number, limit: number, change: Change) => {
      const counts = [`account:${failure.account}`, `ip:${failure.ip}`].map((subject) => {
        forget.run(subject, since);
        fail.run(subject, failure.now);
        return times.all(subject, since).length;
      });
      const what = throttledWhat(failure, counts, limit);
      if (what) changes.record(change, signInThrottled(what));
    });
    this.prune = sqliteWrite(db, (now: number, idleMs: number, since: number) => {
      expired.run(now, now - idleMs);
      oldFailures.run(since);
    });
  }
}
