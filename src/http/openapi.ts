/**
 * The OpenAPI 3.1 document of every route, built from the routes' `doc` and
 * the same valibot schemas that validate requests, so it cannot drift from
 * what the server accepts.
 */
import { type ConversionConfig, type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { RouteDefinition } from './route.ts';

type Json = Record<string, unknown>;
type Convert = (schema: GenericSchema, typeMode: 'input' | 'output') => Json;

/** A schema converter whose `definitions` become $refs into components/schemas. */
function converter(config: ConversionConfig): Convert {
  return (schema, typeMode) => {
    const { $schema: _dialect, $defs: _definitions, ...rest } = toJsonSchema(schema, { ...config, typeMode }) as Json;
    return rest;
  };
}

const ProblemSchema: Json = {
  type: 'object',
  description: 'RFC 9457 problem details; `code` is stable (docs/errors.md), `errors` lists JSON pointers for 422s',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } }, required: ['path', 'message'] },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
};

const SECURITY: Record<RouteDefinition['doc']['auth'], Json[]> = {
  none: [],
  sdk: [{ sdkKey: [] }, { secretKey: [] }],
  secret: [{ secretKey: [] }],
};

/** An empty requirement makes the key optional (OpenAPI 3.1 §4.8.10). */
const KEY_OPTIONAL: Json = {};

/** `/api/paywalls/:id` → `/api/paywalls/{id}`, and the names of its path parameters. */
function openApiPath(pattern: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment;
      names.push(segment.slice(1));
      return `{${segment.slice(1)}}`;
    })
    .join('/');
  return { path, names };
}

/** `GET /api/paywalls/:id/revisions` → `getPaywallsByIdRevisions`: unique per route, usable as a method name by generators. */
function operationId(method: string, pattern: string): string {
  const words = pattern
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api')
    .flatMap((segment) => (segment.startsWith(':') ? ['by', segment.slice(1)] : segment.split(/[^A-Za-z0-9]+/)))
    .filter((word) => word !== '');
  // `/` and a trailing slash (`/dashboard/` beside `/dashboard`) would otherwise name nothing or repeat a name.
  if (pattern.endsWith('/')) words.push(words.length === 0 ? 'root' : 'index');
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

function queryParameters(schema: GenericSchema, convert: Convert): Json[] {
  const converted = convert(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(converted.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as Json & { description?: string };
    return {
      name,
      in: 'query',
      required: converted.required?.includes(name) ?? false,
      ...(description === undefined ? {} : { description }),
      schema: rest,
    };
  });
}

function operation(route: RouteDefinition, pathNames: string[], convert: Convert): Json {
  const { doc } = route;
  const parameters = [
    ...pathNames.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(doc.query ? queryParameters(doc.query, convert) : []),
  ];
  const responses: Json = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    const mediaType = response.mediaType ?? 'application/json';
    responses[status] = {
      description: response.description,
      ...(response.schema ? { content: { [mediaType]: { schema: convert(response.schema, 'output') } } } : {}),
      ...(!response.schema && response.mediaType ? { content: { [mediaType]: {} } } : {}),
    };
  }
  responses.default = { $ref: '#/components/responses/Problem' };
  return {
    operationId: operationId(route.method, route.pattern),
    summary: doc.summary,
    tags: [doc.tag],
    security: doc.keyOptional ? [...SECURITY[doc.auth], KEY_OPTIONAL] : SECURITY[doc.auth],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: convert(doc.requestBody, 'input') } } } } : {}),
    responses,
  };
}

export interface OpenApiOptions {
  version: string;
  /** Schemas that get a name under components/schemas; a recursive schema needs one for its $ref. */
  schemas: Record<string, GenericSchema>;
}

export function openApiDocument(routes: readonly RouteDefinition[], options: OpenApiOptions): Json {
  const config: ConversionConfig = {
    target: 'draft-2020-12',
    definitions: options.schemas,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
    // A check JSON Schema cannot express (a custom rule) is left out of the description rather than failing the document.
    errorMode: 'ignore',
  };
  const convert = converter(config);
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const { path, names } = openApiPath(route.pattern);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, names, convert);
  }
  const components = toJsonSchemaDefs(options.schemas, { ...config, typeMode: 'input' }) as Record<string, JsonSchema>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'paywalld',
      version: options.version,
      description: 'Self-hosted paywall configuration and analytics server. Authenticate with `Authorization: Bearer <API key>`.',
    },
    paths,
    components: {
      schemas: { ...components, Problem: ProblemSchema },
      responses: {
        Problem: { description: 'An error', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
      securitySchemes: {
        sdkKey: { type: 'http', scheme: 'bearer', description: 'An sdk key (`pwk_sdk_…`): resolve paywalls and send events' },
        secretKey: { type: 'http', scheme: 'bearer', description: 'A secret key (`pwk_secret_…`): everything, including the management API' },
      },
    },
  };
}
