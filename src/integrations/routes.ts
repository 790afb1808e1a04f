import * as v from 'valibot';
import { changeOf, projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { jsonDocument, type RouteDefinition, route, unparsedJson } from '../http/route.ts';
import { IntegrationSchema, IntegrationWriteSchema } from './schema.ts';
import { HOOK_OUTCOMES, type IntegrationService } from './service.ts';

/** A store's notification is a few kilobytes (an App Store one with three certificate chains about 15); Stripe invoices with many lines are larger. */
const MAX_NOTIFICATION_BYTES = 1024 * 1024;

const HookResultSchema = v.object({
  outcome: v.pipe(v.picklist(HOOK_OUTCOMES), v.description('stored, duplicate (a redelivery), unused_type or no_user: all final, none to retry')),
  stored: v.number(),
});

export function integrationsApi(integrations: IntegrationService): RouteDefinition[] {
  return [
    route({
      method: 'PUT',
      pattern: '/api/integrations/:provider',
      maxBody: 64 * 1024,
      // The service checks it against the provider's own fields.
      body: jsonDocument(IntegrationWriteSchema),
      doc: {
        operationId: 'putIntegration',
        errors: ['integration_not_found', 'validation_failed', 'secrets_unavailable', 'database_unavailable'],
        summary: 'Configure a store connector (stripe, revenuecat, app-store, google-play); its secrets can be written, never read back',
        tag: 'integrations',
        auth: 'secret',
        access: 'administer',
        responses: { 200: { description: 'the connector as GET shows it', schema: IntegrationSchema } },
      },
      handler: async (req, { params, body }) => json(200, await integrations.configuration.configure(projectOf(req), params.provider, body, changeOf(req))),
    }),
    route({
      method: 'GET',
      pattern: '/api/integrations/:provider',
      doc: {
        operationId: 'getIntegration',
        errors: ['integration_not_found', 'secrets_unavailable', 'database_unavailable'],
        summary: "Read a store connector's configuration: a fingerprint of its secrets and the path the store must call",
        tag: 'integrations',
        auth: 'secret',
        access: 'analyze',
        responses: { 200: { description: 'the connector', schema: IntegrationSchema } },
      },
      handler: async (req, { params }) =>
        json(200, await integrations.configuration.describe(projectOf(req), params.provider), { 'Cache-Control': 'no-store' }),
    }),
    route({
      method: 'POST',
      pattern: '/hooks/:provider/:project',
      maxBody: MAX_NOTIFICATION_BYTES,
      body: unparsedJson(v.pipe(v.looseObject({}), v.description("the provider's notification, exactly as it sends it (signatures cover the raw bytes)"))),
      doc: {
        operationId: 'receiveStoreNotification',
        errors: ['integration_not_found', 'invalid_signature', 'invalid_notification', 'secrets_unavailable', 'database_unavailable', 'store_unavailable'],
        summary:
          "A store's notification (Stripe, RevenueCat, App Store Server Notifications v2, Google Play through Pub/Sub push), answered 200 once its records are on disk",
        tag: 'integrations',
        auth: 'none',
        limit: 'hooks',
        responses: { 200: { description: 'received: the store need not send it again', schema: HookResultSchema } },
      },
      // The store's own proof of origin travels in Authorization (RevenueCat, Pub/Sub's token) or Stripe-Signature: not an API key, so the
      // edge leaves it alone (auth: 'none') and the connector checks it against the project's configuration.
      // The body is parsed by the connector once the origin is checked where it can be (Stripe's HMAC covers the raw
      // bytes, RevenueCat's proof is a header): a keyless caller's megabyte of nested brackets costs no parse.
      handler: async (req, { params, body }) => {
        const notification = { body, header: (name: string) => req.header(name) };
        return json(200, await integrations.receive(params.provider, params.project, notification));
      },
    }),
  ];
}
