import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import type { OutgoingEvent } from './events.ts';
import { DELIVERY_COLUMNS, type StoredWebhook, toWebhookRow, WEBHOOK_COLUMNS } from './rows.ts';
import { MAX_WEBHOOKS, type WebhookPut } from './schema.ts';
import { type DeliveryRow, type WebhookRow, type WebhookStore, webhookDeleted, webhookWritten } from './store.ts';

/** What queues a delivery inside this store's transaction: the outbox on the same connection. */
interface Queue {
  enqueueTo(projectId: string, webhookId: string, event: OutgoingEvent): string;
  /** Tells the sender, once the transaction is over, that a delivery is due. */
  announce(): void;
}

/** Webhook endpoints and their deliveries as listed, on one connection (store.ts says what each method does). */
export class SqliteWebhookStore implements WebhookStore {
  readonly put;
  readonly list;
  readonly get;
  readonly remove;
  readonly queueTo;
  readonly deliveries;
  readonly retry;
  readonly sealSecrets;

  constructor(db: Database, changes: SqliteChangeLog, queue: Queue) {
    const byId = db.prepare<[string, string], StoredWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? AND id = ?`);
    const byProject = db.prepare<[string], StoredWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`);
    const count = db.prepare<[string], number>('SELECT count(*) FROM webhooks WHERE project_id = ?').pluck();
    const insert = db.prepare(
      `INSERT INTO webhooks (project_id, id, url, events, enabled, secret, created_at, updated_at)
       VALUES (@project, @id, @url, @events, @enabled, @secret, @now, @now)`,
    );
    const update = db.prepare(
      'UPDATE webhooks SET url = @url, events = @events, enabled = @enabled, updated_at = @now WHERE project_id = @project AND id = @id',
    );
    const deleteRow = db.prepare<[string, string]>('DELETE FROM webhooks WHERE project_id = ? AND id = ?');
    const delivery = db.prepare<[string, string, string], DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ? AND id = ?`,
    );
    const page = db.prepare<[string, string, number, number], DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
    );
    const restart = db.prepare<[number, number, string]>(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, window_start = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL
       WHERE id = ?`,
    );
    const plaintext = db.prepare<[], { project_id: string; id: string; secret: string }>(
      "SELECT project_id, id, secret FROM webhooks WHERE secret NOT LIKE '{%'",
    );
    const setSecret = db.prepare<[string, string, string]>('UPDATE webhooks SET secret = ? WHERE project_id = ? AND id = ?');
    this.sealSecrets = sqliteWrite(db, (seal: (projectId: string, webhookId: string, secret: string) => string): number => {
      const rows = plaintext.all();
      for (const row of rows) setSecret.run(seal(row.project_id, row.id, row.secret), row.project_id, row.id);
      return rows.length;
    });
    const read = (projectId: string, id: string) => {
      const row = byId.get(projectId, id);
      return row && toWebhookRow(row);
    };

    this.put = sqliteWrite(db, (projectId: string, id: string, fields: WebhookPut, secret: string, now: number, change: Change) => {
      const created = byId.get(projectId, id) === undefined;
      if (created && count.get(projectId)! >= MAX_WEBHOOKS) {
        throw new DomainError('too_many_webhooks', `a project may have at most ${MAX_WEBHOOKS} webhook endpoints: delete one first`);
      }
      const values = { project: projectId, id, url: fields.url, events: JSON.stringify(fields.events), enabled: fields.enabled ? 1 : 0, now };
      if (created) insert.run({ ...values, secret });
      else update.run(values);
      changes.record(change, webhookWritten(projectId, id, fields.url, created));
      return { row: read(projectId, id)!, created };
    });
    this.list = sqliteRead(db, (projectId: string): WebhookRow[] => byProject.all(projectId).map(toWebhookRow));
    this.get = sqliteRead(db, read);
    this.remove = sqliteWrite(db, (projectId: string, id: string, change: Change): WebhookRow | undefined => {
      const row = read(projectId, id);
      if (!row) return undefined;
      // Its deliveries go with it (ON DELETE CASCADE): none is sent once the endpoint is gone.
      deleteRow.run(projectId, id);
      changes.record(change, webhookDeleted(row));
      return row;
    });
    this.queueTo = sqliteWrite(db, (projectId: string, id: string, event: OutgoingEvent): DeliveryRow | undefined => {
      if (!byId.get(projectId, id)) return undefined;
      return delivery.get(projectId, id, queue.enqueueTo(projectId, id, event));
    });
    this.deliveries = sqliteRead(db, (projectId: string, webhookId: string, before: number | undefined, limit: number): DeliveryRow[] =>
      page.all(projectId, webhookId, before ?? Number.MAX_SAFE_INTEGER, limit),
    );
    this.retry = sqliteWrite(db, (projectId: string, webhookId: string, deliveryId: string, now: number): DeliveryRow | undefined => {
      if (!delivery.get(projectId, webhookId, deliveryId)) return undefined;
      restart.run(now, now, deliveryId);
      queue.announce();
      return delivery.get(projectId, webhookId, deliveryId);
    });
  }
}
