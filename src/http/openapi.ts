/**
 * The OpenAPI 3.1 document of every route, built from the routes' `doc` and
 * the same valibot schemas that validate requests, so it cannot drift from
 * what the server accepts.
 */
import { type ConversionConfig, type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { GenericSchema } from 'valibot';
import { bodyOptional, bodySchema } from './input.ts';
import { EDGE_STATUS, type EdgeErrorCode, type ProblemCode, statusTitle } from './problem.ts';
import type { BodySpec, RouteDefinition } from './route.ts';
import { routeErrors } from './route-errors.ts';
import { DOMAIN_ERROR_CODES, statusOf } from './status.ts';

type Json = Record<string, unknown>;
type Convert = (schema: GenericSchema, typeMode: 'input' | 'output') => Json;

/** A schema converter whose `definitions` become $refs into components/schemas. */
function converter(config: ConversionConfig): Convert {
  return (schema, typeMode) => {
    const { $schema: _dialect, $defs: _definitions, ...rest } = toJsonSchema(schema, { ...config, typeMode }) as Json;
    return rest;
  };
}

/** The RFC 9457 problem every error answers with; `code` lists every code (docs/reference/errors.md), each response narrows it. */
function problemSchema(): Json {
  return {
    type: 'object',
    description:
      'RFC 9457 problem details (application/problem+json). `code` is stable (docs/reference/errors.md); `errors` lists field problems at JSON pointers.',
    properties: {
      type: { type: 'string', description: '`urn:paywalld:problem:<code>`' },
      title: { type: 'string', description: 'the status text' },
      status: { type: 'integer' },
      detail: { type: 'string', description: 'what went wrong, for a person; never echoes the input' },
      code: { type: 'string', enum: allCodes(), description: 'what went wrong, for a program' },
      errors: {
        type: 'array',
        description: 'each problem with the input, at its place',
        items: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'a JSON pointer (RFC 6901) into the request document or `/<parameter>` of the query; "" is the whole input' },
            message: { type: 'string' },
          },
          required: ['path', 'message'],
        },
      },
    },
    required: ['type', 'title', 'status', 'detail', 'code'],
  };
}

function allCodes(): ProblemCode[] {
  return [...DOMAIN_ERROR_CODES, ...(Object.keys(EDGE_STATUS) as EdgeErrorCode[])].filter((code, i, all) => all.indexOf(code) === i).sort();
}

/** Headers some error responses carry. */
const ERROR_HEADERS: Record<number, Json> = {
  401: { 'WWW-Authenticate': { description: 'Bearer, with the error', schema: { type: 'string' } } },
  403: { 'WWW-Authenticate': { description: 'Bearer error="insufficient_scope"', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } },
  503: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } },
};

/** A route's error responses: one per status, each naming the codes it may carry. */
function errorResponses(route: RouteDefinition): Json {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of routeErrors(route)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Json = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: `${statusTitle(status)}: ${codes.map((code) => `\`${code}\``).join(', ')} (docs/reference/errors.md)`,
      ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
      content: {
        'application/problem+json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] },
        },
      },
    };
  }
  return responses;
}

const SECURITY: Record<RouteDefinition['doc']['auth'], Json[]> = {
  none: [],
  sdk: [{ sdkKey: [] }, { secretKey: [] }],
  secret: [{ secretKey: [] }, { session: [] }],
  session: [{ session: [] }],
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

function pathParameter(route: RouteDefinition, name: string, convert: Convert): Json {
  const rule = route.params?.[name];
  return { name, in: 'path', required: true, schema: rule ? convert(rule.schema, 'input') : { type: 'string' } };
}

/** The request body: the schema the route parses it with; an optional one when the schema accepts undefined. */
function requestBody(spec: BodySpec, convert: Convert): Json {
  const schema = bodySchema(spec);
  const optional = bodyOptional(spec);
  const described = optional ? (schema as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : schema;
  return { required: !optional, content: { 'application/json': { schema: convert(described, 'input') } } };
}

function operation(route: RouteDefinition, pathNames: string[], convert: Convert): Json {
  const { doc } = route;
  const query = route.query && ('kind' in route.query ? route.query : route.query.schema);
  const parameters = [...pathNames.map((name) => pathParameter(route, name, convert)), ...(query ? queryParameters(query, convert) : [])];
  const responses: Json = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    const mediaType = response.mediaType ?? 'application/json';
    responses[status] = {
      description: response.description,
      ...(response.schema ? { content: { [mediaType]: { schema: convert(response.schema, 'output') } } } : {}),
      ...(!response.schema && response.mediaType ? { content: { [mediaType]: {} } } : {}),
    };
  }
  Object.assign(responses, errorResponses(route));
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    tags: [doc.tag],
    security: [...SECURITY[doc.auth], ...(doc.auth === 'sdk' && doc.access !== undefined ? SECURITY.session : []), ...(doc.keyOptional ? [KEY_OPTIONAL] : [])],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBody(route.body, convert) } : {}),
    responses,
  };
}

interface OpenApiOptions {
  version: string;
  /** An SPDX license identifier. */
  license: string;
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
    if (route.doc.browser) continue;
    const { path, names } = openApiPath(route.pattern);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, names, convert);
  }
  const components = toJsonSchemaDefs(options.schemas, { ...config, typeMode: 'input' }) as Record<string, JsonSchema>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'paywalld',
      version: options.version,
      description:
        'Self-hosted paywall configuration and analytics server. Authenticate with `Authorization: Bearer <API key>`. ' +
        'Every error is application/problem+json with a stable `code` (docs/reference/errors.md); each operation lists the codes it may answer. ' +
        'Any path answers `not_found` (404) when nothing is there, and `method_not_allowed` (405, with `Allow`) for a method it does not list.',
      license: { name: options.license, identifier: options.license },
    },
    // Relative: the server that serves this document, under whatever name a proxy gives it.
    servers: [{ url: '/', description: 'the server that serves this document' }],
    paths,
    components: {
      schemas: { ...components, Problem: problemSchema() },
      securitySchemes: {
        sdkKey: { type: 'http', scheme: 'bearer', description: 'An sdk key (`pwk_sdk_…`): resolve paywalls and send events' },
        secretKey: { type: 'http', scheme: 'bearer', description: 'A secret key (`pwk_secret_…`): everything, including the management API' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'paywalld_session',
          description:
            'A signed-in person (POST /api/auth/login): what their role allows in the project named by X-Paywalld-Project; changes need X-Paywalld-Request: 1 (docs/guide/teams.md)',
        },
      },
    },
  };
}
