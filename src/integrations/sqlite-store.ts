import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { Change } from '../shared/change.ts';
import { type IntegrationRow, type ProjectIntegrationRow, toConfiguration, toProjectConfiguration } from './row.ts';
import type { Provider } from './schema.ts';
import { connectorConfigured, type IntegrationStore } from './store.ts';

export class SqliteIntegrationStore implements IntegrationStore {
  private readonly insertCustomer;
  readonly put;
  readonly get;
  readonly all;
  readonly userOfCustomer;

  constructor(db: Database, changes: SqliteChangeLog) {
    const upsert = db.prepare<[string, string, string, number]>(
      `INSERT INTO integrations (project_id, provider, config, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (project_id, provider) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
    );
    const byProvider = db.prepare<[string, string], IntegrationRow>('SELECT config, updated_at FROM integrations WHERE project_id = ? AND provider = ?');
    const every = db.prepare<[], ProjectIntegrationRow>('SELECT project_id, provider, config, updated_at FROM integrations');
    const customerUser = db
      .prepare<[string, string, string], string>('SELECT user_id FROM integration_customers WHERE project_id = ? AND provider = ? AND customer = ?')
      .pluck();
    this.insertCustomer = db.prepare<[string, string, string, string]>(
      'INSERT INTO integration_customers (project_id, provider, customer, user_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.put = sqliteWrite(db, (projectId: string, provider: Provider, config: unknown, now: number, change: Change): void => {
      upsert.run(projectId, provider, JSON.stringify(config), now);
      changes.record(change, connectorConfigured(projectId, provider));
    });
    this.get = sqliteRead(db, (projectId: string, provider: Provider) => {
      const row = byProvider.get(projectId, provider);
      return row && toConfiguration(row);
    });
    this.all = sqliteRead(db, () => every.all().map(toProjectConfiguration));
    this.userOfCustomer = sqliteRead(db, (projectId: string, provider: Provider, customer: string): string | undefined =>
      customerUser.get(projectId, provider, customer),
    );
  }

  /** Remembers the store's customer id of a user (the first one named stays), inside the caller's transaction (a purchase batch's). */
  linkCustomer(projectId: string, provider: string, customer: string, userId: string): void {
    this.insertCustomer.run(projectId, provider, customer, userId);
  }
}
