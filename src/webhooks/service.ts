/**
 * Outgoing webhooks' endpoints as a service (docs/guide/webhooks.md): the URL's
 * rules, the signing secret made once, test deliveries, the deliveries'
 * pages and retries. Speaks no HTTP.
 */
import * as v from 'valibot';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import { IdSchema } from '../shared/id.ts';
import { ID_RULE } from '../shared/id-pattern.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { resolveChecked } from './addresses.ts';
import { testEvent } from './events.ts';
import type { CreatedWebhook, Delivery, DeliveryPage, Webhook, WebhookPut } from './schema.ts';
import { sealSecret } from './secrets.ts';
import { newSecret } from './signature.ts';
import type { DeliveryRow, WebhookRow, WebhookStore } from './store.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function webhookInfo(row: WebhookRow): Webhook {
  return { id: row.id, url: row.url, events: row.events, enabled: row.enabled, created_at: iso(row.created_at)!, updated_at: iso(row.updated_at)! };
}

function deliveryInfo(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    created_at: iso(row.created_at)!,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    last_attempt_at: iso(row.last_attempt_at),
    response_status: row.response_status,
    response_body: row.response_body,
    error: row.error,
    event: JSON.parse(row.body) as Delivery['event'],
  };
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The URL's shape: https, or http on a loopback address (a receiver on the same machine); no credentials, no fragment. */
function checkShape(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DomainError('webhook_url_invalid', 'url must be an absolute URL');
  }
  const loopback = LOOPBACK_NAMES.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new DomainError('webhook_url_invalid', 'url must be https:// (http:// only on a loopback address)');
  }
  if (url.username !== '' || url.password !== '') throw new DomainError('webhook_url_invalid', 'url must not hold a user or password');
  if (url.hash !== '') throw new DomainError('webhook_url_invalid', 'url must not have a #fragment');
  return url;
}

export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly allowPrivate: boolean,
    private readonly secrets: SecretBox,
  ) {}

  /** Seals the secrets an earlier version stored in plaintext (secrets.ts); answers how many. Run at start. */
  sealStored(): Promise<number> {
    return this.store.sealSecrets((projectId, id, secret) => sealSecret(this.secrets, projectId, id, secret));
  }

  /** Creates or replaces an endpoint; a new one's answer holds its secret, which nothing shows again. */
  async put(
    projectId: string,
    id: string,
    fields: WebhookPut,
    change: Change,
  ): Promise<{ created: true; webhook: CreatedWebhook } | { created: false; webhook: Webhook }> {
    if (!v.is(IdSchema, id)) throw new DomainError('invalid_id', `a webhook id is ${ID_RULE}`);
    const url = checkShape(fields.url);
    try {
      await resolveChecked(url.hostname, this.allowPrivate);
    } catch (error) {
      throw new DomainError('webhook_url_refused', `url refused: ${(error as Error).message}`);
    }
    const secret = newSecret();
    const { row, created } = await this.store.put(
      projectId,
      id,
      { ...fields, url: url.href },
      sealSecret(this.secrets, projectId, id, secret),
      Date.now(),
      change,
    );
    return created ? { created, webhook: { ...webhookInfo(row), secret } } : { created, webhook: webhookInfo(row) };
  }

  async list(projectId: string): Promise<Webhook[]> {
    return (await this.store.list(projectId)).map(webhookInfo);
  }

  async get(projectId: string, id: string): Promise<Webhook> {
    return webhookInfo(await this.found(projectId, id));
  }

  async remove(projectId: string, id: string, change: Change): Promise<Webhook> {
    const row = await this.store.remove(projectId, id, change);
    if (!row) throw notFound();
    return webhookInfo(row);
  }

  /** Queues a `test` event for this endpoint alone, whatever it subscribes to and even when disabled. */
  async test(projectId: string, id: string): Promise<Delivery> {
    const row = await this.store.queueTo(projectId, id, testEvent(projectId, id, Date.now()));
    if (!row) throw notFound();
    return deliveryInfo(row);
  }

  async deliveries(projectId: string, id: string, cursor: number | undefined, limit: number): Promise<DeliveryPage> {
    await this.found(projectId, id);
    // One more than the page: whether an older page exists.
    const rows = await this.store.deliveries(projectId, id, cursor, limit + 1);
    const page = rows.slice(0, limit);
    return { deliveries: page.map(deliveryInfo), next_cursor: rows.length > limit ? String(page.at(-1)!.seq) : null };
  }

  async retry(projectId: string, id: string, deliveryId: string): Promise<Delivery> {
    await this.found(projectId, id);
    const row = await this.store.retry(projectId, id, deliveryId, Date.now());
    if (!row) throw new DomainError('delivery_not_found', 'this webhook has no delivery with that id');
    return deliveryInfo(row);
  }

  private async found(projectId: string, id: string): Promise<WebhookRow> {
    const row = await this.store.get(projectId, id);
    if (!row) throw notFound();
    return row;
  }
}

function notFound(): DomainError {
  return new DomainError('webhook_not_found', 'no webhook with that id in this project');
}
