import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { Change } from '../shared/change.ts';
import { type IntegrationRow, type ProjectIntegrationRow, toConfiguration, toProjectConfiguration } from './row.ts';
import type { Provider } from './schema.ts';
import { connectorConfigured, type IntegrationStore, type StoredConfiguration } from './store.ts';

/** Connector configurations in PostgreSQL (store.ts says what each method does). */
export class PostgresIntegrationStore implements IntegrationStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  put(projectId: string, provider: Provider, config: unknown, now: number, change: Change): Promise<void> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        await tx`
          INSERT INTO integrations (project_id, provider, config, updated_at) VALUES (${projectId}, ${provider}, ${JSON.stringify(config)}, ${now})
          ON CONFLICT (project_id, provider) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`;
        await this.changes.record(tx, change, connectorConfigured(projectId, provider));
      }),
    );
  }

  get(projectId: string, provider: Provider): Promise<StoredConfiguration | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<IntegrationRow[]>`SELECT config, updated_at FROM integrations WHERE project_id = ${projectId} AND provider = ${provider}`;
      return row && toConfiguration(row);
    });
  }

  all(): Promise<({ projectId: string; provider: Provider } & StoredConfiguration)[]> {
    return storeCall(async () =>
      (await this.sql<ProjectIntegrationRow[]>`SELECT project_id, provider, config, updated_at FROM integrations`).map(toProjectConfiguration),
    );
  }

  userOfCustomer(projectId: string, provider: Provider, customer: string): Promise<string | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<{ user_id: string }[]>`
        SELECT user_id FROM integration_customers WHERE project_id = ${projectId} AND provider = ${provider} AND customer = ${customer}`;
      return row?.user_id;
    });
  }

  /** Remembers the store's customer id of a user (the first one named stays), in the caller's transaction (a purchase batch's). */
  async linkCustomer(tx: Transaction, projectId: string, provider: string, customer: string, userId: string): Promise<void> {
    await tx`INSERT INTO integration_customers (project_id, provider, customer, user_id) VALUES (${projectId}, ${provider}, ${customer}, ${userId})
             ON CONFLICT DO NOTHING`;
  }
}
