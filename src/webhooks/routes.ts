import { changeOf, projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import {
  CreatedWebhookSchema,
  DeliveriesQuerySchema,
  DeliveryPageSchema,
  DeliverySchema,
  WebhookListSchema,
  WebhookPutSchema,
  WebhookSchema,
} from './schema.ts';
import type { WebhookService } from './service.ts';

const DEFAULT_PAGE = 50;
const NO_STORE = { 'Cache-Control': 'no-store' };

/** Outgoing webhooks (docs/guide/webhooks.md): owners (and secret keys) manage them; analysts read them and their deliveries. */
export function webhooksApi(webhooks: WebhookService): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/webhooks',
      doc: {
        operationId: 'listWebhooks',
        errors: ['database_unavailable'],
        summary: "List the project's webhook endpoints (never their secrets)",
        tag: 'webhooks',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'the endpoints', schema: WebhookListSchema } },
      },
      handler: async (req) => json(200, { webhooks: await webhooks.list(projectOf(req)) }, NO_STORE),
    }),
    route({
      method: 'GET',
      pattern: '/api/webhooks/:id',
      doc: {
        operationId: 'getWebhook',
        errors: ['webhook_not_found', 'database_unavailable'],
        summary: 'Read a webhook endpoint (never its secret)',
        tag: 'webhooks',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'the endpoint', schema: WebhookSchema } },
      },
      handler: async (req, { params }) => json(200, await webhooks.get(projectOf(req), params.id), NO_STORE),
    }),
    route({
      method: 'PUT',
      pattern: '/api/webhooks/:id',
      maxBody: 8 * 1024,
      body: WebhookPutSchema,
      doc: {
        operationId: 'putWebhook',
        errors: [
          'invalid_id',
          'validation_failed',
          'webhook_url_invalid',
          'webhook_url_refused',
          'too_many_webhooks',
          'secrets_unavailable',
          'database_unavailable',
        ],
        summary: 'Create or replace a webhook endpoint; creating one answers its signing secret, the only time it is shown',
        tag: 'webhooks',
        auth: 'secret',
        access: 'administer',
        responses: {
          200: { description: 'the endpoint was replaced (it keeps its secret)', schema: WebhookSchema },
          201: { description: 'the endpoint was created, with its secret', schema: CreatedWebhookSchema },
        },
      },
      handler: async (req, { params: { id }, body }) => {
        const { created, webhook } = await webhooks.put(projectOf(req), id, body, changeOf(req));
        return json(created ? 201 : 200, webhook, created ? { ...NO_STORE, Location: `/api/webhooks/${encodeURIComponent(id)}` } : NO_STORE);
      },
    }),
    route({
      method: 'DELETE',
      pattern: '/api/webhooks/:id',
      doc: {
        operationId: 'deleteWebhook',
        errors: ['webhook_not_found', 'database_unavailable'],
        summary: 'Delete a webhook endpoint and its deliveries, sent or not',
        tag: 'webhooks',
        auth: 'secret',
        access: 'administer',
        responses: { 200: { description: 'the deleted endpoint', schema: WebhookSchema } },
      },
      handler: async (req, { params }) => json(200, await webhooks.remove(projectOf(req), params.id, changeOf(req))),
    }),
    route({
      method: 'POST',
      pattern: '/api/webhooks/:id/test',
      doc: {
        operationId: 'testWebhook',
        errors: ['webhook_not_found', 'database_unavailable'],
        summary: 'Queue a `test` event for this endpoint alone (whatever it subscribes to, enabled or not)',
        tag: 'webhooks',
        auth: 'secret',
        access: 'administer',
        responses: { 202: { description: 'the delivery, queued', schema: DeliverySchema } },
      },
      handler: async (req, { params }) => json(202, await webhooks.test(projectOf(req), params.id), NO_STORE),
    }),
    route({
      method: 'GET',
      pattern: '/api/webhooks/:id/deliveries',
      query: DeliveriesQuerySchema,
      doc: {
        operationId: 'listWebhookDeliveries',
        errors: ['invalid_query', 'webhook_not_found', 'database_unavailable'],
        summary: "A webhook endpoint's deliveries, newest first: status, attempts, the last answer",
        tag: 'webhooks',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'a page of deliveries', schema: DeliveryPageSchema } },
      },
      handler: async (req, { params, query }) =>
        json(200, await webhooks.deliveries(projectOf(req), params.id, query.cursor, query.limit ?? DEFAULT_PAGE), NO_STORE),
    }),
    route({
      method: 'POST',
      pattern: '/api/webhooks/:id/deliveries/:delivery/retry',
      doc: {
        operationId: 'retryWebhookDelivery',
        errors: ['webhook_not_found', 'delivery_not_found', 'database_unavailable'],
        summary: 'Send a delivery again now, from the start of the retry schedule (a failed one, or any other)',
        tag: 'webhooks',
        auth: 'secret',
        access: 'administer',
        responses: { 202: { description: 'the delivery, queued', schema: DeliverySchema } },
      },
      handler: async (req, { params }) => json(202, await webhooks.retry(projectOf(req), params.id, params.delivery), NO_STORE),
    }),
  ];
}
