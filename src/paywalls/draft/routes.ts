import { projectOf } from '../../http/auth.ts';
import { json, rawJson } from '../../http/reply.ts';
import { jsonDocument, type RouteDefinition, route } from '../../http/route.ts';
import { DomainError } from '../../shared/errors.ts';
import { documentSizeErrors } from '../document/limits.ts';
import { PaywallSchema } from '../document/schema.ts';
import { ResolvedPaywallSchema } from '../resolve/schema.ts';
import { MAX_PUT_BODY } from '../routes.ts';
import type { PaywallDrafts } from './drafts.ts';
import { DraftValidationSchema, PreviewRequestSchema } from './schema.ts';

/** A preview request is a document plus a few small fields (variant, locale, platform, country). */
const PREVIEW_FIELDS_BYTES = 4096;

/** The 422 a PUT answers for a document over the size limit, or nothing. */
function refuseOversized(bytes: number): void {
  const errors = documentSizeErrors(bytes);
  if (errors.length > 0) throw new DomainError('validation_failed', 'the paywall document is invalid; see errors', { errors });
}

/**
 * Validate-only and preview: what the dashboard's editor calls as the author
 * types, so that it shows the server's own verdict and the server's own
 * resolve instead of a copy of either in the browser.
 */
export function paywallDraftsApi(drafts: PaywallDrafts): RouteDefinition[] {
  return [
    route({
      method: 'POST',
      pattern: '/api/paywalls/:id/validate',
      maxBody: MAX_PUT_BODY,
      body: jsonDocument(PaywallSchema, refuseOversized),
      doc: {
        operationId: 'validatePaywall',
        errors: ['invalid_id', 'validation_failed', 'database_unavailable'],
        summary: 'Validate a paywall document exactly as PUT would, without storing it: 200 with warnings, or the 422 a PUT would answer',
        tag: 'paywalls',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the document is valid', schema: DraftValidationSchema } },
      },
      handler: async (req, { params, body: document }) => {
        const warnings = await drafts.validate(projectOf(req), params.id, document);
        return json(200, { valid: true, warnings }, { 'Cache-Control': 'no-store' });
      },
    }),
    route({
      method: 'POST',
      pattern: '/api/paywalls/:id/preview',
      maxBody: MAX_PUT_BODY,
      body: { schema: PreviewRequestSchema, refuse: (bytes: number) => refuseOversized(bytes - PREVIEW_FIELDS_BYTES) },
      doc: {
        operationId: 'previewPaywall',
        errors: ['invalid_id', 'validation_failed', 'database_unavailable'],
        summary:
          'Resolve a document that is not (necessarily) live, for a chosen variant, locale, platform and country, as the SDK endpoint would serve it; revision is 0',
        tag: 'paywalls',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the resolved paywall', schema: ResolvedPaywallSchema } },
      },
      handler: async (req, { params, body: request }) => {
        return rawJson(200, await drafts.preview(projectOf(req), params.id, request), { 'Cache-Control': 'no-store' });
      },
    }),
  ];
}
