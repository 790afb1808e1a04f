import packageJson from '../../package.json' with { type: 'json' };
import { openApiDocument } from '../http/openapi.ts';
import { taggedJson } from '../http/preconditions.ts';
import { type Route, type RouteDefinition, route } from '../http/route.ts';
import type { Router } from '../http/router.ts';
import { ComponentNodeSchema } from '../paywalls/document/components.ts';

/**
 * GET /api/openapi.json. It documents the router it is added to, itself
 * included: the document is built on the first request, once every route is
 * registered, and kept.
 */
export function openApiApi(router: Router<Route>): RouteDefinition[] {
  let document: unknown;
  return [
    route({
      method: 'GET',
      pattern: '/api/openapi.json',
      doc: {
        operationId: 'getOpenApiDocument',
        errors: [],
        summary: 'This OpenAPI 3.1 document of every endpoint',
        tag: 'operations',
        auth: 'none',
        responses: { 200: { description: 'the OpenAPI document', mediaType: 'application/json' }, 304: { description: 'If-None-Match holds the ETag' } },
      },
      handler: (req) => {
        document ??= openApiDocument(
          router.routes().map(({ method, pattern, route }) => ({ method: method as RouteDefinition['method'], pattern, ...route })),
          { version: packageJson.version, license: packageJson.license, schemas: { ComponentNode: ComponentNodeSchema } },
        );
        return taggedJson(req.header('if-none-match'), document);
      },
    }),
  ];
}
