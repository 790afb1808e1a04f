import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import type { OutgoingEvent } from './events.ts';
import { DELIVERY_COLUMNS, type StoredWebhook, toWebhookRow, WEBHOOK_COLUMNS } from './rows.ts';
import { MAX_WEBHOOKS, type WebhookPut } from './schema.ts';
import { type DeliveryRow, type WebhookRow, type WebhookStore, webhookDeleted, webhookWritten } from './store.ts';

/** What queues a delivery in this store's transaction: the outbox. */
interface Queue {
  enqueueTo(tx: Transaction, projectId: string, webhookId: string, event: OutgoingEvent): Promise<string>;
  announce(tx: Transaction): Promise<void>;
}

/** Webhook endpoints and their deliveries as listed, in PostgreSQL (store.ts says what each method does). */
export class PostgresWebhookStore implements WebhookStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
    private readonly queue: Queue,
  ) {}

  private async read(tx: Sql | Transaction, projectId: string, id: string): Promise<WebhookRow | undefined> {
    const [row] = await tx<StoredWebhook[]>`SELECT ${tx.unsafe(WEBHOOK_COLUMNS)} FROM webhooks WHERE project_id = ${projectId} AND id = ${id}`;
    return row && toWebhookRow(row);
  }

  private async delivery(tx: Sql | Transaction, projectId: string, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
    const [row] = await tx<DeliveryRow[]>`SELECT ${tx.unsafe(DELIVERY_COLUMNS)} FROM webhook_deliveries
                                          WHERE project_id = ${projectId} AND webhook_id = ${webhookId} AND id = ${id}`;
    return row;
  }

  put(projectId: string, id: string, fields: WebhookPut, secret: string, now: number, change: Change): Promise<{ row: WebhookRow; created: boolean }> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // The project's row lock orders concurrent creations, so that the count stays true until the insert commits.
        await tx`SELECT 1 FROM projects WHERE id = ${projectId} FOR UPDATE`;
        const created = (await this.read(tx, projectId, id)) === undefined;
        const [{ count } = { count: 0 }] = await tx<{ count: number }[]>`SELECT count(*)::int AS count FROM webhooks WHERE project_id = ${projectId}`;
        if (created && count >= MAX_WEBHOOKS) {
          throw new DomainError('too_many_webhooks', `a project may have at most ${MAX_WEBHOOKS} webhook endpoints: delete one first`);
        }
        const events = JSON.stringify(fields.events);
        const enabled = fields.enabled ? 1 : 0;
        if (created) {
          await tx`INSERT INTO webhooks (project_id, id, url, events, enabled, secret, created_at, updated_at)
                   VALUES (${projectId}, ${id}, ${fields.url}, ${events}, ${enabled}, ${secret}, ${now}, ${now})`;
        } else {
          await tx`UPDATE webhooks SET url = ${fields.url}, events = ${events}, enabled = ${enabled}, updated_at = ${now}
                   WHERE project_id = ${projectId} AND id = ${id}`;
        }
        await this.changes.record(tx, change, webhookWritten(projectId, id, fields.url, created));
        return { row: (await this.read(tx, projectId, id))!, created };
      }),
    );
  }

  sealSecrets(seal: (projectId: string, webhookId: string, secret: string) => string): Promise<number> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const rows = await tx<{ project_id: string; id: string; secret: string }[]>`
          SELECT project_id, id, secret FROM webhooks WHERE secret NOT LIKE '{%' FOR UPDATE`;
        for (const row of rows)
          await tx`UPDATE webhooks SET secret = ${seal(row.project_id, row.id, row.secret)} WHERE project_id = ${row.project_id} AND id = ${row.id}`;
        return rows.length;
      }),
    );
  }

  list(projectId: string): Promise<WebhookRow[]> {
    return storeCall(async () =>
      (await this.sql<StoredWebhook[]>`SELECT ${this.sql.unsafe(WEBHOOK_COLUMNS)} FROM webhooks WHERE project_id = ${projectId} ORDER BY created_at, id`).map(
        toWebhookRow,
      ),
    );
  }

  get(projectId: string, id: string): Promise<WebhookRow | undefined> {
    return storeCall(() => this.read(this.sql, projectId, id));
  }

  remove(projectId: string, id: string, change: Change): Promise<WebhookRow | undefined> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const [row] = await tx<StoredWebhook[]>`DELETE FROM webhooks WHERE project_id = ${projectId} AND id = ${id} RETURNING ${tx.unsafe(WEBHOOK_COLUMNS)}`;
        if (!row) return undefined;
        const removed = toWebhookRow(row);
        await this.changes.record(tx, change, webhookDeleted(removed));
        return removed;
      }),
    );
  }

  queueTo(projectId: string, id: string, event: OutgoingEvent): Promise<DeliveryRow | undefined> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        if (!(await this.read(tx, projectId, id))) return undefined;
        return this.delivery(tx, projectId, id, await this.queue.enqueueTo(tx, projectId, id, event));
      }),
    );
  }

  deliveries(projectId: string, webhookId: string, before: number | undefined, limit: number): Promise<DeliveryRow[]> {
    return storeCall(async () => [
      ...(await this.sql<DeliveryRow[]>`SELECT ${this.sql.unsafe(DELIVERY_COLUMNS)} FROM webhook_deliveries
        WHERE project_id = ${projectId} AND webhook_id = ${webhookId} AND seq < ${before ?? Number.MAX_SAFE_INTEGER}
        ORDER BY seq DESC LIMIT ${limit}`),
    ]);
  }

  retry(projectId: string, webhookId: string, deliveryId: string, now: number): Promise<DeliveryRow | undefined> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const result = await tx`UPDATE webhook_deliveries
          SET status = 'pending', attempts = 0, window_start = ${now}, next_attempt_at = ${now}, lease_owner = NULL, lease_until = NULL
          WHERE project_id = ${projectId} AND webhook_id = ${webhookId} AND id = ${deliveryId}`;
        if (result.count === 0) return undefined;
        await this.queue.announce(tx);
        return this.delivery(tx, projectId, webhookId, deliveryId);
      }),
    );
  }
}
