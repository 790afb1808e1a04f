import type { Migration } from './migration.ts';

/**
 * People, their roles per project, sessions and the audit log (docs/guide/teams.md).
 *
 * `users.email_key` is the email lower-cased: emails are unique compared
 * case-insensitively, and shown as typed. `password_hash` carries its scrypt
 * parameters (src/accounts/password.ts). Sessions and invitation tokens are
 * stored as the SHA-256 of the token, never the token; an invitation without
 * an email (a first start's) lets whoever holds it name theirs. `sign_in_failures`
 * holds the failed sign-ins of the last 15 minutes per account and per
 * client address, which every instance reads (the throttle).
 *
 * `audit_log` is appended in the transaction of each change it records and
 * never updated (a trigger refuses); `seq` orders it, newest last. Its
 * `project_id` is null for what belongs to no project. `api_key_usage` keeps
 * each key's last use apart from `api_keys`, whose changes bump the
 * configuration generation (migration 4): a key in use must not make every
 * instance reload its keys. `paywall_revisions.created_by` is the actor
 * (JSON) who wrote the revision; null before this version.
 */
export const teams: Migration = {
  version: 14,
  name: 'teams: users, roles, sessions, audit log',
  sql: `
    CREATE TABLE users (
      id            TEXT PRIMARY KEY,
      email         TEXT NOT NULL,
      email_key     TEXT NOT NULL UNIQUE,
      name          TEXT NOT NULL,
      password_hash TEXT NOT NULL,
      created_at    INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE memberships (
      project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role       TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'analyst', 'viewer')),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (project_id, user_id)
    ) STRICT;
    CREATE INDEX memberships_by_user ON memberships (user_id);

    CREATE TABLE sessions (
      token_hash   TEXT PRIMARY KEY,
      user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at   INTEGER NOT NULL,
      last_seen_at INTEGER NOT NULL,
      expires_at   INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX sessions_by_user ON sessions (user_id);

    CREATE TABLE invitations (
      token_hash TEXT PRIMARY KEY,
      kind       TEXT NOT NULL CHECK (kind IN ('invite', 'reset')),
      project_id TEXT REFERENCES projects(id) ON DELETE CASCADE,
      email      TEXT,
      role       TEXT CHECK (role IN ('owner', 'editor', 'analyst', 'viewer')),
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at    INTEGER
    ) STRICT;

    CREATE TABLE sign_in_failures (
      subject TEXT NOT NULL,
      at      INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX sign_in_failures_by_subject ON sign_in_failures (subject, at);

    CREATE TABLE audit_log (
      seq         INTEGER PRIMARY KEY AUTOINCREMENT,
      id          TEXT NOT NULL UNIQUE,
      at          INTEGER NOT NULL,
      project_id  TEXT,
      actor_type  TEXT NOT NULL,
      actor_id    TEXT NOT NULL,
      actor_label TEXT NOT NULL,
      action      TEXT NOT NULL,
      target_type TEXT NOT NULL,
      target_id   TEXT NOT NULL,
      revision    INTEGER,
      ip          TEXT,
      summary     TEXT NOT NULL
    ) STRICT;
    CREATE INDEX audit_log_by_project ON audit_log (project_id, seq);
    CREATE INDEX audit_log_by_time ON audit_log (at);
    CREATE TRIGGER audit_log_never_updated BEFORE UPDATE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit entries are never edited'); END;

    CREATE TABLE api_key_usage (
      key_id       TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
      last_used_at INTEGER NOT NULL
    ) STRICT;

    ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
    ALTER TABLE paywall_revisions ADD COLUMN created_by TEXT;
  `,
};
