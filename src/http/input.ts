/**
 * The edge's reading of a route's input from its declaration (route.ts):
 * path parameters, query and JSON body, each parsed before the handler runs,
 * so that a handler only ever sees typed values and every bad input answers
 * the same problem on every route.
 */
import * as v from 'valibot';
import { DomainError } from '../shared/errors.ts';
import { parseQueryParams } from '../shared/query.ts';
import { parseWith } from '../shared/validate.ts';
import { readJson, requireJsonMediaType } from './json.ts';
import { queryParams } from './query.ts';
import type { Request } from './request.ts';
import type { AnyInput, BodySpec, PathParam, QuerySpec, Route } from './route.ts';
import type { Params } from './router.ts';

/** The input of a request to `route`; throws the problem a bad part answers. */
export function readInput(route: Route, req: Request, params: Params): AnyInput {
  return {
    params: route.params === undefined ? params : checkParams(route.params, params),
    query: route.query === undefined ? undefined : readQuery(route.query, req),
    body: route.body === undefined ? undefined : readBody(route.body, req),
  };
}

function checkParams(rules: Readonly<Record<string, PathParam<unknown>>>, params: Params): Record<string, unknown> {
  const checked: Record<string, unknown> = { ...params };
  for (const name in rules) {
    const rule = rules[name]!;
    const result = v.safeParse(rule.schema, params[name]);
    if (!result.success) throw new DomainError(rule.missing.code, rule.missing.detail);
    checked[name] = result.output;
  }
  return checked;
}

function readQuery(spec: QuerySpec, req: Request): unknown {
  if ('read' in spec) return spec.read(req);
  return parseQueryParams(spec, queryParams(req.query()));
}

/** The schema a body declaration documents and parses with. */
export function bodySchema(spec: BodySpec): v.GenericSchema {
  return 'kind' in spec ? spec : spec.schema;
}

/** A body schema that accepts undefined makes the body optional. */
export function bodyOptional(spec: BodySpec): boolean {
  return bodySchema(spec).type === 'optional';
}

function readBody(spec: BodySpec, req: Request): unknown {
  if ('unparsed' in spec) {
    requireJsonMediaType(req);
    return req.body;
  }
  const schema = bodySchema(spec);
  if (req.body.length === 0 && schema.type === 'optional') return parseWith(schema, undefined);
  if ('kind' in spec) return parseWith(spec, readJson(req));
  spec.refuse?.(req.body.length);
  const value = readJson(req);
  return 'read' in spec ? spec.read(value) : parseWith(schema, value);
}
