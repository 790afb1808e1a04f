/**
 * Every problem code a route can answer with: the ones its handler declares
 * (`doc.errors`) and the ones the edge raises itself, derived from the rest
 * of the route's declaration by the code that raises them. The OpenAPI
 * document is built from this, so it names what the server really answers.
 */
import { authErrors } from './auth.ts';
import { BODY_ERRORS } from './body.ts';
import { JSON_ERRORS } from './json.ts';
import { rateLimitErrors } from './policy.ts';
import type { ProblemCode } from './problem.ts';
import type { RouteDefinition } from './route.ts';
import { HEAD_ERRORS, PATH_ERRORS, UNEXPECTED_ERRORS } from './server.ts';

export function routeErrors(route: RouteDefinition): ProblemCode[] {
  const codes = new Set<ProblemCode>(route.doc.errors);
  const add = (list: readonly ProblemCode[]) => {
    for (const code of list) codes.add(code);
  };
  if (route.pattern.includes('/:')) add(PATH_ERRORS);
  add(authErrors(route.doc, route.method));
  add(rateLimitErrors(route));
  if (route.maxBody !== undefined) add(BODY_ERRORS);
  // The edge parses what the route declares (input.ts).
  if (route.body) add('unparsed' in route.body ? ['unsupported_media_type'] : JSON_ERRORS);
  // A body its schema parses (no `read` of its own) answers validation_failed when it does not fit.
  if (route.body && !('read' in route.body) && !('unparsed' in route.body)) add(['validation_failed']);
  if (route.query && 'kind' in route.query) add(['invalid_query']);
  for (const name in route.params) add([route.params[name]!.missing.code]);
  add(HEAD_ERRORS);
  add(UNEXPECTED_ERRORS);
  return [...codes].sort();
}
