import * as v from 'valibot';
import { ResultsQuerySchema } from '../experiments/schema.ts';
import { changeOf, projectOf } from '../http/auth.ts';
import { taggedJson } from '../http/preconditions.ts';
import { json } from '../http/reply.ts';
import { jsonDocument, type PathParam, type RouteDefinition, route } from '../http/route.ts';
import { entityTag } from '../shared/preconditions.ts';
import { type PlacementManager, placementInfo, placementTag } from './management.ts';
import { type PlacementResults, PlacementResultsSchema } from './results.ts';
import {
  PlacementDetailSchema,
  PlacementInfoSchema,
  PlacementListSchema,
  PlacementRevisionDetailSchema,
  PlacementRevisionListSchema,
  PlacementSchema,
  PlacementWrittenSchema,
} from './schema.ts';

/** A placement of 100 rules with their audiences fits well below this. */
const MAX_PLACEMENT_BODY = 256 * 1024;

const revisionNumber: PathParam<number> = {
  schema: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/), v.transform(Number)),
  missing: { code: 'revision_not_found', detail: 'the placement has no revision with this number' },
};

/** The management API of placements (docs/guide/placements.md): written, read, archived, their revisions listed. */
const PlacementResultsQuerySchema = v.object({ analysis: ResultsQuerySchema.entries.analysis });

export function placementsApi(placements: PlacementManager, results: PlacementResults): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/placements',
      doc: {
        operationId: 'listPlacements',
        errors: ['database_unavailable'],
        summary: "List the project's placements, archived ones included",
        tag: 'placements',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the placements, by id', schema: PlacementListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req) => {
        const ifNoneMatch = req.header('if-none-match');
        return taggedJson(ifNoneMatch, { placements: await placements.list(projectOf(req)) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/placements/:id',
      doc: {
        operationId: 'getPlacement',
        errors: ['placement_not_found', 'database_unavailable'],
        summary: 'Read a placement and its newest revision (the one served); the ETag is what If-Match wants on writes',
        tag: 'placements',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the placement', schema: PlacementDetailSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        const { row, document } = await placements.get(projectOf(req), params.id);
        return taggedJson(ifNoneMatch, { ...placementInfo(row), document }, placementTag(row));
      },
    }),
    route({
      method: 'PUT',
      pattern: '/api/placements/:id',
      maxBody: MAX_PLACEMENT_BODY,
      body: jsonDocument(PlacementSchema),
      doc: {
        operationId: 'putPlacement',
        errors: ['invalid_id', 'validation_failed', 'precondition_failed', 'database_unavailable'],
        summary: 'Create a placement or write a new revision of it, served at once (an archived placement is served again)',
        tag: 'placements',
        auth: 'secret',
        access: 'edit',
        responses: {
          200: { description: 'a new revision of an existing placement', schema: PlacementWrittenSchema },
          201: { description: 'the placement was created with revision 1', schema: PlacementWrittenSchema },
        },
      },
      handler: async (req, { params: { id }, body }) => {
        const preconditions = { ifMatch: req.header('if-match'), ifNoneMatch: req.header('if-none-match') };
        const { row, warnings, created } = await placements.write(projectOf(req), id, body, preconditions, changeOf(req));
        const headers: Record<string, string> = { ETag: placementTag(row) };
        if (created) headers.Location = `/api/placements/${encodeURIComponent(id)}`;
        return json(created ? 201 : 200, { ...placementInfo(row), warnings }, headers);
      },
    }),
    route({
      method: 'DELETE',
      pattern: '/api/placements/:id',
      doc: {
        operationId: 'archivePlacement',
        errors: ['placement_not_found', 'precondition_failed', 'database_unavailable'],
        summary: 'Archive a placement: GET /api/sdk/placement stops serving it at once; its revisions are kept',
        tag: 'placements',
        auth: 'secret',
        access: 'edit',
        responses: { 200: { description: 'the archived placement', schema: PlacementInfoSchema } },
      },
      handler: async (req, { params }) => {
        const row = await placements.archive(projectOf(req), params.id, req.header('if-match'), changeOf(req));
        return json(200, placementInfo(row), { ETag: placementTag(row) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/placements/:id/revisions',
      doc: {
        operationId: 'listPlacementRevisions',
        errors: ['placement_not_found', 'database_unavailable'],
        summary: "List a placement's revisions, newest first",
        tag: 'placements',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the revisions', schema: PlacementRevisionListSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        return taggedJson(ifNoneMatch, { revisions: await placements.revisions(projectOf(req), params.id) });
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/placements/:id/revisions/:revision',
      params: { revision: revisionNumber },
      doc: {
        operationId: 'getPlacementRevision',
        errors: ['placement_not_found', 'revision_not_found', 'database_unavailable'],
        summary: 'Read one revision of a placement, for instance to write it again (a rollback)',
        tag: 'placements',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the revision', schema: PlacementRevisionDetailSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: async (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        const revision = await placements.revision(projectOf(req), params.id, params.revision);
        // A revision never changes: its number is its tag.
        return taggedJson(ifNoneMatch, revision, entityTag(`r${revision.revision}`));
      },
    }),
    route({
      method: 'GET',
      pattern: '/api/placements/:id/results',
      query: PlacementResultsQuerySchema,
      doc: {
        operationId: 'getPlacementResults',
        errors: ['invalid_query', 'placement_not_found', 'stats_warming_up', 'database_unavailable'],
        summary: "A placement's results: users shown its paywall against those held out (the control), with the statistics and decision of experiments",
        tag: 'placements',
        auth: 'secret',
        access: 'view',
        responses: { 200: { description: 'the results (docs/guide/placements.md, docs/reference/experiments.md)', schema: PlacementResultsSchema } },
      },
      handler: async (req, { params, query: { analysis } }) =>
        json(200, await results.results(projectOf(req), params.id, analysis), { 'Cache-Control': 'no-store' }),
    }),
  ];
}
