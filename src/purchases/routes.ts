import { projectOf } from '../http/auth.ts';
import { json } from '../http/reply.ts';
import { jsonDocument, type RouteDefinition, route } from '../http/route.ts';
import { PurchaseBatchSchema, PurchaseResultSchema } from './schema.ts';
import type { PurchaseService } from './service.ts';

/** Largest request body of POST /api/purchases; the edge answers 413 past it. */
const MAX_PURCHASES_BYTES = 1024 * 1024;

export function purchasesApi(purchases: PurchaseService): RouteDefinition[] {
  return [
    route({
      method: 'POST',
      pattern: '/api/purchases',
      maxBody: MAX_PURCHASES_BYTES,
      // Each record is checked by the service, which rejects it alone (invalid_purchases, too_many_purchases for the batch).
      body: jsonDocument(PurchaseBatchSchema),
      doc: {
        operationId: 'recordPurchases',
        errors: ['invalid_purchases', 'too_many_purchases', 'database_unavailable'],
        summary: "Record purchases from the app's server (renewals, trials, refunds …); answered once the accepted records are on disk",
        tag: 'purchases',
        auth: 'secret',
        access: 'administer',
        responses: {
          200: { description: 'done: do not retry (rejected records are listed by index; duplicates were stored before)', schema: PurchaseResultSchema },
        },
      },
      handler: async (req, { body }) => json(200, await purchases.ingest(body, projectOf(req))),
    }),
  ];
}
