import { PhaseListSchema } from '../experiments/schema.ts';
import { projectOf } from '../http/auth.ts';
import { readJson } from '../http/json.ts';
import { taggedJson } from '../http/preconditions.ts';
import { json } from '../http/reply.ts';
import type { Request } from '../http/request.ts';
import type { RouteDefinition } from '../http/route.ts';
import { DomainError } from '../shared/errors.ts';
import type { Preconditions } from '../shared/preconditions.ts';
import { parseWith } from '../shared/validate.ts';
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

const REVISION_NUMBER = /^[1-9][0-9]{0,8}$/;

function revisionParam(req: Request): number {
  const text = req.params.revision!;
  if (!REVISION_NUMBER.test(text)) throw new DomainError('revision_not_found', 'the paywall has no revision with this number');
  return Number(text);
}

function preconditions(req: Request): Preconditions {
  return { ifMatch: req.header('if-match'), ifNoneMatch: req.header('if-none-match') };
}

export function paywallsApi(paywalls: PaywallManager): RouteDefinition[] {
  return [
    {
      method: 'GET',
      pattern: '/api/paywalls',
      doc: {
        operationId: 'listPaywalls',
        errors: ['database_unavailable'],
        summary: "List the project's paywalls, archived ones included",
        tag: 'paywalls',
        auth: 'secret',
        responses: { 200: { description: 'the paywalls, by id', schema: PaywallListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req) => taggedJson(req.header('if-none-match'), { paywalls: paywalls.list(projectOf(req)) }),
    },
    {
      method: 'GET',
      pattern: '/api/paywalls/:id',
      doc: {
        operationId: 'getPaywall',
        errors: ['paywall_not_found', 'database_unavailable'],
        summary: 'Read a paywall and its newest revision; the ETag is what If-Match wants on writes',
        tag: 'paywalls',
        auth: 'secret',
        responses: { 200: { description: 'the paywall', schema: PaywallDetailSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req) => {
        const { row, document } = paywalls.get(projectOf(req), req.params.id!);
        return taggedJson(req.header('if-none-match'), { ...paywallInfo(row), document }, paywallTag(row));
      },
    },
    {
      method: 'PUT',
      pattern: '/api/paywalls/:id',
      maxBody: MAX_PUT_BODY,
      doc: {
        operationId: 'putPaywall',
        errors: ['invalid_id', 'validation_failed', 'precondition_failed', 'database_unavailable'],
        summary: 'Create a paywall or write a new draft revision of it (not served until published)',
        tag: 'paywalls',
        auth: 'secret',
        requestBody: PaywallSchema,
        responses: {
          200: { description: 'a new revision of an existing paywall', schema: PaywallWrittenSchema },
          201: { description: 'the paywall was created with revision 1', schema: PaywallWrittenSchema },
        },
      },
      handler: (req) => {
        const id = req.params.id!;
        paywalls.checkSize(req.body.length);
        const { row, warnings, created } = paywalls.write(projectOf(req), id, readJson(req), preconditions(req));
        const headers: Record<string, string> = { ETag: paywallTag(row) };
        if (created) headers.Location = `/api/paywalls/${encodeURIComponent(id)}`;
        return json(created ? 201 : 200, { ...paywallInfo(row), warnings }, headers);
      },
    },
    {
      method: 'POST',
      pattern: '/api/paywalls/:id/publish',
      maxBody: 1024,
      doc: {
        operationId: 'publishPaywall',
        errors: ['validation_failed', 'paywall_not_found', 'revision_not_found', 'revision_invalid', 'precondition_failed', 'database_unavailable'],
        summary: 'Publish a revision: the newest, or the one named (an older one is a rollback); unarchives the paywall',
        tag: 'paywalls',
        auth: 'secret',
        requestBody: PublishSchema,
        responses: { 200: { description: 'the paywall, now live, and its current experiment phase', schema: PublishedSchema } },
      },
      handler: (req) => {
        const { revision, new_phase: forceNew = false, reseed = true } = req.body.length === 0 ? {} : parseWith(PublishSchema, readJson(req));
        const { row, phase, started, seed } = paywalls.publish(projectOf(req), req.params.id!, revision, req.header('if-match'), { forceNew, reseed });
        return json(200, { ...paywallInfo(row), phase: { number: phase.number, started, seed } }, { ETag: paywallTag(row) });
      },
    },
    {
      method: 'GET',
      pattern: '/api/paywalls/:id/phases',
      doc: {
        operationId: 'listPaywallPhases',
        errors: ['paywall_not_found', 'database_unavailable'],
        summary: "List a paywall's experiment phases, oldest first: a phase starts when a publish changes the split or asks for one",
        tag: 'experiments',
        auth: 'secret',
        responses: { 200: { description: 'the phases', schema: PhaseListSchema } },
      },
      handler: (req) => json(200, { phases: paywalls.phaseList(projectOf(req), req.params.id!) }, { 'Cache-Control': 'no-store' }),
    },
    {
      method: 'DELETE',
      pattern: '/api/paywalls/:id',
      doc: {
        operationId: 'archivePaywall',
        errors: ['paywall_not_found', 'precondition_failed', 'database_unavailable'],
        summary: 'Archive a paywall: the SDK endpoint stops serving it at once; its revisions are kept',
        tag: 'paywalls',
        auth: 'secret',
        responses: { 200: { description: 'the archived paywall', schema: PaywallInfoSchema } },
      },
      handler: (req) => {
        const row = paywalls.archive(projectOf(req), req.params.id!, req.header('if-match'));
        return json(200, paywallInfo(row), { ETag: paywallTag(row) });
      },
    },
    {
      method: 'GET',
      pattern: '/api/paywalls/:id/revisions',
      doc: {
        operationId: 'listPaywallRevisions',
        errors: ['paywall_not_found', 'database_unavailable'],
        summary: "List a paywall's revisions, newest first",
        tag: 'paywalls',
        auth: 'secret',
        responses: { 200: { description: 'the revisions', schema: RevisionListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req) => taggedJson(req.header('if-none-match'), { revisions: paywalls.revisions(projectOf(req), req.params.id!) }),
    },
    {
      method: 'GET',
      pattern: '/api/paywalls/:id/revisions/:revision',
      doc: {
        operationId: 'getPaywallRevision',
        errors: ['paywall_not_found', 'revision_not_found', 'database_unavailable'],
        summary: 'Read one revision of a paywall, for instance before rolling back to it',
        tag: 'paywalls',
        auth: 'secret',
        responses: { 200: { description: 'the revision', schema: RevisionDetailSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req) => {
        const { info, document, tag } = paywalls.revision(projectOf(req), req.params.id!, revisionParam(req));
        return taggedJson(req.header('if-none-match'), { ...info, document }, tag);
      },
    },
  ];
}
