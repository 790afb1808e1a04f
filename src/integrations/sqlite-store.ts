import type { Database } from '../db/database.ts';
import type { Provider } from './schema.ts';

interface Row {
  config: string;
  updated_at: number;
}

/** Each project's connector configurations, and the Stripe customers a checkout named. */
export class SqliteIntegrationStore {
  private readonly upsert;
  private readonly byProvider;
  private readonly insertCustomer;
  private readonly customerUser;

  constructor(db: Database) {
    this.upsert = db.prepare<[string, string, string, number]>(
      `INSERT INTO integrations (project_id, provider, config, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (project_id, provider) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
    );
    this.byProvider = db.prepare<[string, string], Row>('SELECT config, updated_at FROM integrations WHERE project_id = ? AND provider = ?');
    this.insertCustomer = db.prepare<[string, string, string, string]>(
      'INSERT INTO integration_customers (project_id, provider, customer, user_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.customerUser = db
      .prepare<[string, string, string], string>('SELECT user_id FROM integration_customers WHERE project_id = ? AND provider = ? AND customer = ?')
      .pluck();
  }

  put(projectId: string, provider: Provider, config: unknown, now: number): void {
    this.upsert.run(projectId, provider, JSON.stringify(config), now);
  }

  get(projectId: string, provider: Provider): { config: unknown; updatedAt: number } | undefined {
    const row = this.byProvider.get(projectId, provider);
    return row && { config: JSON.parse(row.config), updatedAt: row.updated_at };
  }

  /** Remembers the store's customer id of a user (the first one named stays); call inside the records' transaction. */
  linkCustomer(projectId: string, provider: Provider, customer: string, userId: string): void {
    this.insertCustomer.run(projectId, provider, customer, userId);
  }

  userOfCustomer(projectId: string, provider: Provider, customer: string): string | undefined {
    return this.customerUser.get(projectId, provider, customer);
  }
}
