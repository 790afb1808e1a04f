/**
 * The outbox in PostgreSQL: as on SQLite (sqlite-outbox.ts), the change log
 * every store records through, queuing each change's event in the store
 * method's transaction. Several instances send from it: a sender leases the
 * rows it claims (`FOR UPDATE SKIP LOCKED`, then `lease_owner` until
 * `lease_until`), so that each delivery is sent by one instance at a time,
 * and a lease left by an instance that died expires. NOTIFY, which
 * PostgreSQL delivers when the transaction commits, wakes every instance's
 * sender at once.
 */
import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { PurchaseRecord } from '../purchases/schema.ts';
import type { Change, ChangeEntry } from '../shared/change.ts';
import { changeEvent, type DecisionKey, type DecisionReadout, decisionEvent, type OutgoingEvent, purchaseEvent } from './events.ts';
import { CLAIMED_COLUMNS, newDeliveryId, subscribes } from './rows.ts';
import type { ClaimedDelivery, OutboxStore, Settlement } from './store.ts';

const CHANNEL = 'paywalld_webhooks';
const FIRST_STATUS = 'not_enough_data';
const INSERT_ROWS = 1000;

export class PostgresOutbox implements PostgresChangeLog, OutboxStore {
  constructor(
    private readonly sql: Sql,
    private readonly audit: PostgresChangeLog,
  ) {}

  async record(tx: Transaction, change: Change, entry: ChangeEntry): Promise<void> {
    await this.audit.record(tx, change, entry);
    const event = changeEvent(change, entry, Date.now());
    if (event && entry.project !== null) await this.enqueue(tx, entry.project, event);
  }

  /** The purchase records a batch just stored (never a duplicate), in its transaction: one read of the endpoints and one insert for the batch. */
  async purchased(tx: Transaction, projectId: string, records: readonly PurchaseRecord[], receivedAt: number): Promise<void> {
    if (records.length > 0) await this.enqueue(tx, projectId, ...records.map((record) => purchaseEvent(projectId, record, receivedAt)));
  }

  /** Queues `event` for one endpoint in `tx`; answers the delivery's id. */
  async enqueueTo(tx: Transaction, projectId: string, webhookId: string, event: OutgoingEvent): Promise<string> {
    const id = newDeliveryId();
    const now = Date.now();
    await tx`INSERT INTO webhook_deliveries (id, project_id, webhook_id, type, body, created_at, status, attempts, window_start, next_attempt_at)
             VALUES (${id}, ${projectId}, ${webhookId}, ${event.type}, ${event.body}, ${event.at}, 'pending', 0, ${now}, ${now})`;
    await this.announce(tx);
    return id;
  }

  /** Wakes every instance's sender once `tx` commits (a NOTIFY is delivered then, and dropped on a rollback). */
  async announce(tx: Transaction): Promise<void> {
    await tx`SELECT pg_notify(${CHANNEL}, '')`;
  }

  private async enqueue(tx: Transaction, projectId: string, ...events: OutgoingEvent[]): Promise<void> {
    const webhooks = await tx<{ id: string; events: string }[]>`SELECT id, events FROM webhooks WHERE project_id = ${projectId} AND enabled = 1`;
    const now = Date.now();
    const rows = events.flatMap((event) =>
      webhooks
        .filter((webhook) => subscribes(webhook.events, event.type))
        .map((webhook) => ({
          id: newDeliveryId(),
          project_id: projectId,
          webhook_id: webhook.id,
          type: event.type,
          body: event.body,
          created_at: event.at,
          status: 'pending',
          attempts: 0,
          window_start: now,
          next_attempt_at: now,
        })),
    );
    if (rows.length === 0) return;
    // A statement takes at most 65,535 parameters: a batch of 1,000 purchases for 50 endpoints is 50,000 rows of 10.
    for (let start = 0; start < rows.length; start += INSERT_ROWS) await tx`INSERT INTO webhook_deliveries ${tx(rows.slice(start, start + INSERT_ROWS))}`;
    await this.announce(tx);
  }

  claim(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return storeCall(async () => [
      ...(await this.sql<ClaimedDelivery[]>`
        WITH claimed AS (
          UPDATE webhook_deliveries SET lease_owner = ${owner}, lease_until = ${now + leaseMs}
          WHERE seq IN (
            SELECT seq FROM webhook_deliveries
            WHERE status = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
            ORDER BY next_attempt_at LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING *)
        SELECT ${this.sql.unsafe(CLAIMED_COLUMNS)} FROM claimed d JOIN webhooks w ON w.project_id = d.project_id AND w.id = d.webhook_id`),
    ]);
  }

  settle(id: string, owner: string, outcome: Settlement): Promise<boolean> {
    return storeCall(async () => {
      const result = await this.sql`
        UPDATE webhook_deliveries SET status = ${outcome.status}, attempts = attempts + 1, last_attempt_at = ${outcome.at},
          next_attempt_at = ${outcome.nextAttemptAt}, response_status = ${outcome.responseStatus}, response_body = ${outcome.responseBody},
          error = ${outcome.error}, lease_owner = NULL, lease_until = NULL
        WHERE id = ${id} AND lease_owner = ${owner}`;
      return result.count === 1;
    });
  }

  release(owner: string | undefined): Promise<void> {
    return storeCall(async () => {
      if (owner === undefined) await this.sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL`;
      else await this.sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ${owner}`;
    });
  }

  pending(): Promise<{ count: number; nextDue: number; oldest: number } | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<{ count: number; next_due: number | null; oldest: number | null }[]>`
        SELECT count(*)::int AS count, min(next_attempt_at) AS next_due, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`;
      return !row || row.count === 0 ? undefined : { count: row.count, nextDue: row.next_due!, oldest: row.oldest! };
    });
  }

  async decided(key: DecisionKey, decision: DecisionReadout, now: number): Promise<boolean> {
    const audience = key.audience ?? '';
    const current = (tx: Sql | Transaction, lock: boolean) =>
      tx<{ status: string }[]>`SELECT status FROM experiment_decisions
        WHERE project_id = ${key.projectId} AND paywall_id = ${key.paywallId} AND phase = ${key.phase} AND audience = ${audience}
        ${lock ? tx`FOR UPDATE` : tx``}`;
    // Read first: results are computed far more often than a decision moves.
    if (((await storeCall(() => current(this.sql, false)))[0]?.status ?? FIRST_STATUS) === decision.status) return false;
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // Instances computing the same results at once: the first to insert the row (or lock it) decides, the others see its status.
        await tx`INSERT INTO experiment_decisions (project_id, paywall_id, phase, audience, status, updated_at)
                 VALUES (${key.projectId}, ${key.paywallId}, ${key.phase}, ${audience}, ${FIRST_STATUS}, ${now}) ON CONFLICT DO NOTHING`;
        const previous = (await current(tx, true))[0]!.status;
        if (previous === decision.status) return false;
        await tx`UPDATE experiment_decisions SET status = ${decision.status}, updated_at = ${now}
                 WHERE project_id = ${key.projectId} AND paywall_id = ${key.paywallId} AND phase = ${key.phase} AND audience = ${audience}`;
        await this.enqueue(tx, key.projectId, decisionEvent(key, previous, decision, now));
        return true;
      }),
    );
  }

  prune(before: number): Promise<number> {
    return storeCall(async () => (await this.sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND last_attempt_at < ${before}`).count);
  }

  async watch(listener: () => void): Promise<() => Promise<void>> {
    const listening = await this.sql.listen(CHANNEL, () => listener());
    return () => listening.unlisten();
  }
}
