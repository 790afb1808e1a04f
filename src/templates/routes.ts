import { taggedJson } from '../http/preconditions.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { TemplateListSchema, TemplateSchema } from './schema.ts';
import type { TemplateGallery } from './service.ts';

/** GET /api/templates and /api/templates/{id}: the gallery, for any key of any project (it holds nothing of a project). */
export function templatesApi(templates: TemplateGallery): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      pattern: '/api/templates',
      doc: {
        operationId: 'listTemplates',
        errors: [],
        summary: 'The template gallery: complete paywall documents to start from',
        tag: 'templates',
        auth: 'sdk',
        access: 'view',
        responses: {
          200: { description: 'every template, in gallery order', schema: TemplateListSchema },
          304: { description: 'If-None-Match holds the ETag' },
        },
      },
      handler: (req) => taggedJson(req.header('if-none-match'), { templates: templates.list() }),
    }),
    route({
      method: 'GET',
      pattern: '/api/templates/:id',
      doc: {
        operationId: 'getTemplate',
        errors: ['template_not_found'],
        summary: 'One template of the gallery',
        tag: 'templates',
        auth: 'sdk',
        access: 'view',
        responses: { 200: { description: 'the template', schema: TemplateSchema }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req, { params }) => {
        const ifNoneMatch = req.header('if-none-match');
        return taggedJson(ifNoneMatch, templates.get(params.id));
      },
    }),
  ];
}
