import type { Migration } from './migration.ts';

/**
 * Revenue from the stores and one user across ids (docs/guide/revenue.md).
 *
 * `purchases` holds the records of `POST /api/purchases` and of the store
 * connectors, deduplicated by (project, source, id): `source` is `api` for
 * the generic endpoint and the provider's name for a connector, whose id is
 * the provider's event id, so a redelivery is stored once. These are written
 * on the server's own connection in one transaction per request: a few per
 * second, not the event stream's hundreds of thousands, so they need no
 * writer thread of their own (docs/guide/revenue.md, "Durability").
 *
 * `user_links`: the first `identify` of an anonymous id wins. `user_tokens`:
 * the App Store `appAccountToken` (UUID v5 of the user id) of each user
 * seen, so that a notification names its user; `user_token_progress` says
 * how far the event users dictionary (event_users) has been hashed.
 * `integrations` holds each project's connector configuration (secrets
 * included: the database is the server's secret store, as for key hashes),
 * `integration_customers` the Stripe customer of each user a checkout named.
 */
export const purchasesAndIdentity: Migration = {
  version: 10,
  name: 'purchases, store connectors and user identity',
  sql: `
    CREATE TABLE purchases (
      seq                     INTEGER PRIMARY KEY,
      project_id              TEXT NOT NULL,
      source                  TEXT NOT NULL,
      purchase_id             TEXT NOT NULL,
      user_id                 TEXT NOT NULL,
      type                    TEXT NOT NULL,
      ts                      INTEGER NOT NULL,
      product_id              TEXT,
      store                   TEXT,
      store_product_id        TEXT,
      revenue                 REAL NOT NULL,
      currency                TEXT NOT NULL,
      transaction_id          TEXT,
      original_transaction_id TEXT,
      paywall_id              TEXT,
      received_at             INTEGER NOT NULL,
      UNIQUE (project_id, source, purchase_id)
    ) STRICT;
    CREATE INDEX purchases_by_user ON purchases (project_id, user_id, ts);
    CREATE INDEX purchases_by_original ON purchases (project_id, source, original_transaction_id) WHERE original_transaction_id IS NOT NULL;
    CREATE INDEX purchases_by_transaction ON purchases (project_id, source, transaction_id) WHERE transaction_id IS NOT NULL;

    CREATE TABLE user_links (
      project_id   TEXT NOT NULL,
      anonymous_id TEXT NOT NULL,
      user_id      TEXT NOT NULL,
      linked_at    INTEGER NOT NULL,
      PRIMARY KEY (project_id, anonymous_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE user_tokens (
      project_id TEXT NOT NULL,
      token      TEXT NOT NULL,
      user_id    TEXT NOT NULL,
      PRIMARY KEY (project_id, token)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE user_token_progress (
      project_id TEXT PRIMARY KEY,
      ordinal    INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE integrations (
      project_id TEXT NOT NULL,
      provider   TEXT NOT NULL,
      config     TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (project_id, provider)
    ) STRICT;

    CREATE TABLE integration_customers (
      project_id TEXT NOT NULL,
      provider   TEXT NOT NULL,
      customer   TEXT NOT NULL,
      user_id    TEXT NOT NULL,
      PRIMARY KEY (project_id, provider, customer)
    ) STRICT, WITHOUT ROWID;
  `,
};
