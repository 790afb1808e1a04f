import * as v from 'valibot';
import { PhaseListSchema } from '../experiments/schema.ts';
import { changeOf, projectOf } from '../http/auth.ts';
import { taggedJson } from '../http/preconditions.ts';
import { json } from '../http/reply.ts';
import type { Request } from '../http/request.ts';
import { jsonDocument, type PathParam, type RouteDefinition, route } from '../http/route.ts';
import type { Preconditions } from '../shared/preconditions.ts';
import { MAX_DOCUMENT_BYTES } from './document/limits.ts';
import { PaywallSchema } from './document/schema.ts';
import { type PaywallManager, paywallInfo, paywallTag } from './management.ts';
import {
  PaywallDetailSchema,
  PaywallInfoSchema,
  PaywallListSchema,
  PaywallWrittenSchema,
  PublishedSchema,
  PublishSchema,
  RevisionDetailSchema,
  RevisionListSchema,
} from './schema.ts';

/** Bodies up to here are read so that an oversized document still gets its 422; past it the edge answers 413. */
export const MAX_PUT_BODY = 4 * MAX_DOCUMENT_BYTES;

/** A revision number in a path; anything else names no revision. */
const revisionNumber: PathParam<number> = {
  schema: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/), v.transform(Number)),
  missing: { code: 'revision_not_found', detail: 'the paywall has no revision with this number' },
};

function preconditions(req: Request): Preconditions {
  return { ifMatch: req.header('if-match'), ifNoneMatch: req.header('if-none-match') };
}

export function paywallsApi(paywalls: PaywallManager): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/paywalls',
      doc: {
        operationId: 'listPaywalls',
        errors: ['database_unavailable'],
        summary: "List the project's paywalls, archived ones included",
        tag: 'paywalls',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the paywalls, by id', schema: PaywallListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req) => {
        const ifNoneMatch = req.header('if-none-match');
        return taggedJson(ifNoneMatch, { paywalls: await paywalls.list(projectOf(req)) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/paywalls/:id',
      doc: {
        operationId: 'getPaywall',
        errors: ['paywall_not_found', 'database_unavailable'],
        summary: 'Read a paywall and its newest revision; the ETag is what If-Match wants on writes',
        tag: 'paywalls',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the paywall', schema: PaywallDetailSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        const { row, document } = await paywalls.get(projectOf(req), params.id);
        return taggedJson(ifNoneMatch, { ...paywallInfo(row), document }, paywallTag(row));
      },
    }),
    route({
      method: 'PUT',
      pattern: '/api/paywalls/:id',
      maxBody: MAX_PUT_BODY,
      body: jsonDocument(PaywallSchema, (bytes) => paywalls.checkSize(bytes)),
      doc: {
        operationId: 'putPaywall',
        errors: ['invalid_id', 'validation_failed', 'precondition_failed', 'database_unavailable'],
        summary: 'Create a paywall or write a new draft revision of it (not served until published)',
        tag: 'paywalls',
        auth: 'secret',
        access: 'edit',
        responses: {
          200: { description: 'a new revision of an existing paywall', schema: PaywallWrittenSchema },
          201: { description: 'the paywall was created with revision 1', schema: PaywallWrittenSchema },
        },
      },
      handler: async (req, { params: { id }, body: document }) => {
        const { row, warnings, created } = await paywalls.write(projectOf(req), id, document, preconditions(req), changeOf(req));
        const headers: Record<string, string> = { ETag: paywallTag(row) };
        if (created) headers.Location = `/api/paywalls/${encodeURIComponent(id)}`;
        return json(created ? 201 : 200, { ...paywallInfo(row), warnings }, headers);
      },
    }),
    route({
      method: 'POST',
      pattern: '/api/paywalls/:id/publish',
      maxBody: 1024,
      body: v.optional(PublishSchema, {}),
      doc: {
        operationId: 'publishPaywall',
        errors: ['validation_failed', 'paywall_not_found', 'revision_not_found', 'revision_invalid', 'precondition_failed', 'database_unavailable'],
        summary: 'Publish a revision: the newest, or the one named (an older one is a rollback); unarchives the paywall',
        tag: 'paywalls',
        auth: 'secret',
        access: 'edit',
        responses: { 200: { description: 'the paywall, now live, and its current experiment phase', schema: PublishedSchema } },
      },
      handler: async (req, { params, body: { revision, new_phase: forceNew = false, reseed = true } }) => {
        const { row, phase, started, seed, warnings } = await paywalls.publish(projectOf(req), params.id, revision, req.header('if-match'), changeOf(req), {
          forceNew,
          reseed,
        });
        return json(200, { ...paywallInfo(row), phase: { number: phase.number, started, seed }, warnings }, { ETag: paywallTag(row) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/paywalls/:id/phases',
      doc: {
        operationId: 'listPaywallPhases',
        errors: ['paywall_not_found', 'database_unavailable'],
        summary: "List a paywall's experiment phases, oldest first: a phase starts when a publish changes the split or asks for one",
        tag: 'experiments',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the phases', schema: PhaseListSchema } },
      },
      handler: async (req, { params }) => json(200, { phases: await paywalls.phaseList(projectOf(req), params.id) }, { 'Cache-Control': 'no-store' }),
    }),
    route({
      method: 'DELETE',
      pattern: '/api/paywalls/:id',
      doc: {
        operationId: 'archivePaywall',
        errors: ['paywall_not_found', 'precondition_failed', 'database_unavailable'],
        summary: 'Archive a paywall: the SDK endpoint stops serving it at once; its revisions are kept',
        tag: 'paywalls',
        auth: 'secret',
        access: 'edit',
        responses: { 200: { description: 'the archived paywall', schema: PaywallInfoSchema } },
      },
      handler: async (req, { params }) => {
        const row = await paywalls.archive(projectOf(req), params.id, req.header('if-match'), changeOf(req));
        return json(200, paywallInfo(row), { ETag: paywallTag(row) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/paywalls/:id/revisions',
      doc: {
        operationId: 'listPaywallRevisions',
        errors: ['paywall_not_found', 'database_unavailable'],
        summary: "List a paywall's revisions, newest first",
        tag: 'paywalls',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the revisions', schema: RevisionListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        return taggedJson(ifNoneMatch, { revisions: await paywalls.revisions(projectOf(req), params.id) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/paywalls/:id/revisions/:revision',
      params: { revision: revisionNumber },
      doc: {
        operationId: 'getPaywallRevision',
        errors: ['paywall_not_found', 'revision_not_found', 'database_unavailable'],
        summary: 'Read one revision of a paywall, for instance before rolling back to it',
        tag: 'paywalls',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the revision', schema: RevisionDetailSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        const { info, document, tag } = await paywalls.revision(projectOf(req), params.id, params.revision);
        return taggedJson(ifNoneMatch, { ...info, document }, tag);
      },
    }),
  ];
}
