/**
 * The outbox on SQLite. It is the change log every store records through
 * (db/change-log.ts): it appends the audit entry, then queues the change's
 * event for each endpoint that subscribes, on the same connection, inside
 * the store method's transaction. A purchase batch queues its stored
 * records the same way (`purchased`, its companion). The server alone on
 * its file sends them (worker.ts).
 */
import { EventEmitter } from 'node:events';
import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { PurchaseRecord } from '../purchases/schema.ts';
import type { Change, ChangeEntry } from '../shared/change.ts';
import { changeEvent, type DecisionKey, type DecisionReadout, decisionEvent, type OutgoingEvent, purchaseEvent } from './events.ts';
import { CLAIMED_COLUMNS, newDeliveryId, subscribes } from './rows.ts';
import type { ClaimedDelivery, OutboxStore, Settlement } from './store.ts';

/** Where a phase starts: a decision first seen with another status has changed. */
const FIRST_STATUS = 'not_enough_data';

export class SqliteOutbox implements SqliteChangeLog, OutboxStore {
  private readonly subscribers;
  private readonly insert;
  private readonly queued = new EventEmitter();
  /** One announcement for whatever a transaction (or a turn of the loop) queued. */
  private announcing = false;
  readonly claim;
  readonly settle;
  readonly release;
  readonly pending;
  readonly decided;
  readonly prune;

  constructor(
    db: Database,
    private readonly audit: SqliteChangeLog,
  ) {
    this.subscribers = db.prepare<[string], { id: string; events: string }>('SELECT id, events FROM webhooks WHERE project_id = ? AND enabled = 1');
    this.insert = db.prepare<[string, string, string, string, string, number, number, number]>(
      `INSERT INTO webhook_deliveries (id, project_id, webhook_id, type, body, created_at, status, attempts, window_start, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
    );
    const due = db.prepare<[number, number, number], ClaimedDelivery>(
      `SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.project_id = d.project_id AND w.id = d.webhook_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
       ORDER BY d.next_attempt_at LIMIT ?`,
    );
    const lease = db.prepare<[string, number, string]>('UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id = ?');
    this.claim = sqliteWrite(db, (owner: string, now: number, leaseMs: number, limit: number): ClaimedDelivery[] => {
      const claimed = due.all(now, now, limit);
      for (const delivery of claimed) lease.run(owner, now + leaseMs, delivery.id);
      return claimed;
    });
    const settle = db.prepare(
      `UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1, last_attempt_at = @at, next_attempt_at = @nextAttemptAt,
         response_status = @responseStatus, response_body = @responseBody, error = @error, lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND lease_owner = @owner`,
    );
    this.settle = sqliteWrite(db, (id: string, owner: string, outcome: Settlement): boolean => settle.run({ ...outcome, id, owner }).changes === 1);
    const releaseOwn = db.prepare<[string]>('UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?');
    const releaseAll = db.prepare('UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL');
    this.release = sqliteWrite(db, (owner: string | undefined): void => {
      if (owner === undefined) releaseAll.run();
      else releaseOwn.run(owner);
    });
    const pending = db.prepare<[], { count: number; nextDue: number | null; oldest: number | null }>(
      `SELECT count(*) AS count, min(next_attempt_at) AS nextDue, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
    );
    this.pending = sqliteRead(db, () => {
      const row = pending.get()!;
      return row.count === 0 ? undefined : { count: row.count, nextDue: row.nextDue!, oldest: row.oldest! };
    });
    const stored = db
      .prepare<[string, string, number, string], string>(
        'SELECT status FROM experiment_decisions WHERE project_id = ? AND paywall_id = ? AND phase = ? AND audience = ?',
      )
      .pluck();
    const store = db.prepare<[string, string, number, string, string, number]>(
      `INSERT INTO experiment_decisions (project_id, paywall_id, phase, audience, status, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, paywall_id, phase, audience) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
    );
    const read = sqliteRead(db, (key: DecisionKey): string => stored.get(key.projectId, key.paywallId, key.phase, key.audience ?? '') ?? FIRST_STATUS);
    const write = sqliteWrite(db, (key: DecisionKey, decision: DecisionReadout, now: number): boolean => {
      const previous = stored.get(key.projectId, key.paywallId, key.phase, key.audience ?? '') ?? FIRST_STATUS;
      if (previous === decision.status) return false;
      store.run(key.projectId, key.paywallId, key.phase, key.audience ?? '', decision.status, now);
      this.enqueue(key.projectId, decisionEvent(key, previous, decision, now));
      return true;
    });
    const prune = db.prepare<[number]>(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND last_attempt_at < ?`);
    this.prune = sqliteWrite(db, (before: number): number => prune.run(before).changes);
    // Read first: results are computed far more often than a decision moves, and a read takes no write lock.
    this.decided = async (key: DecisionKey, decision: DecisionReadout, now: number): Promise<boolean> =>
      (await read(key)) !== decision.status && write(key, decision, now);
  }

  record(change: Change, entry: ChangeEntry): void {
    this.audit.record(change, entry);
    const event = changeEvent(change, entry, Date.now());
    if (event && entry.project !== null) this.enqueue(entry.project, event);
  }

  /** A purchase record just stored (never a duplicate), inside its batch's transaction. */
  purchased(projectId: string, record: PurchaseRecord, receivedAt: number): void {
    this.enqueue(projectId, purchaseEvent(projectId, record, receivedAt));
  }

  /** Queues `event` for one endpoint, inside the caller's transaction (WebhookStore.queueTo); answers the delivery's id. */
  enqueueTo(projectId: string, webhookId: string, event: OutgoingEvent): string {
    const id = newDeliveryId();
    const now = Date.now();
    this.insert.run(id, projectId, webhookId, event.type, event.body, event.at, now, now);
    this.announce();
    return id;
  }

  private enqueue(projectId: string, event: OutgoingEvent): void {
    for (const webhook of this.subscribers.all(projectId)) if (subscribes(webhook.events, event.type)) this.enqueueTo(projectId, webhook.id, event);
  }

  /** After the transaction: better-sqlite3's transactions are synchronous, so the next turn of the loop sees them committed (or rolled back). */
  announce(): void {
    if (this.announcing) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      this.queued.emit('queued');
    });
  }

  async watch(listener: () => void): Promise<() => Promise<void>> {
    this.queued.on('queued', listener);
    return async () => {
      this.queued.off('queued', listener);
    };
  }
}
