import type { Migration } from './migration.ts';

/**
 * Outgoing webhooks (docs/guide/webhooks.md). `webhooks` are each project's
 * endpoints: `events` a JSON array of event types, `secret` the signing
 * secret (`whsec_…`), stored as the store connectors' secrets are.
 * `webhook_deliveries` is the outbox: a row is written in the transaction
 * of the change that causes it, `body` is what every attempt sends, and a
 * sender leases a due row (`lease_owner` until `lease_until`) while it
 * sends it, so that two instances never send one at once. `attempts` and
 * `window_start` count from when it was queued or last retried by hand;
 * settled deliveries are deleted 30 days after their last attempt.
 * `experiment_decisions` holds the last decision status seen of each
 * phase's segment (`audience` '' for the default split), so that a change
 * is noticed once, whichever instance computes it.
 */
export const webhooks: Migration = {
  version: 16,
  name: 'outgoing webhooks',
  sql: `
    CREATE TABLE webhooks (
      project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id         TEXT NOT NULL,
      url        TEXT NOT NULL,
      events     TEXT NOT NULL,
      enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
      secret     TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (project_id, id)
    ) STRICT;

    CREATE TABLE webhook_deliveries (
      seq             INTEGER PRIMARY KEY AUTOINCREMENT,
      id              TEXT NOT NULL UNIQUE,
      project_id      TEXT NOT NULL,
      webhook_id      TEXT NOT NULL,
      type            TEXT NOT NULL,
      body            TEXT NOT NULL,
      created_at      INTEGER NOT NULL,
      status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts        INTEGER NOT NULL,
      window_start    INTEGER NOT NULL,
      next_attempt_at INTEGER,
      lease_owner     TEXT,
      lease_until     INTEGER,
      last_attempt_at INTEGER,
      response_status INTEGER,
      response_body   TEXT,
      error           TEXT,
      FOREIGN KEY (project_id, webhook_id) REFERENCES webhooks (project_id, id) ON DELETE CASCADE
    ) STRICT;
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (project_id, webhook_id, seq);
    CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (last_attempt_at) WHERE status <> 'pending';

    CREATE TABLE experiment_decisions (
      project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      paywall_id TEXT NOT NULL,
      phase      INTEGER NOT NULL,
      audience   TEXT NOT NULL,
      status     TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (project_id, paywall_id, phase, audience)
    ) STRICT;
  `,
};
