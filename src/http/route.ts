import type { GenericSchema } from 'valibot';
import type { ProblemCode } from './problem.ts';
import type { Reply } from './reply.ts';
import type { Request } from './request.ts';

/** How a route is documented in /api/openapi.json. Every route has one, so the document cannot miss a route. */
export interface RouteDoc {
  /** The operation's name in a generated client: a verb and a noun (`publishPaywall`), unique. */
  operationId: string;
  summary: string;
  tag: string;
  /**
   * The problem codes the handler (and the services it calls) may raise. The
   * edge's own (auth, rate limit, body, JSON, path) are added from the rest of
   * this declaration (route-errors.ts); the OpenAPI document lists both, and a
   * test fails when the test suite sees a route answer a code it does not
   * declare.
   */
  errors: readonly ProblemCode[];
  /** A page for a browser (the dashboard), not part of the API: left out of the OpenAPI document. */
  browser?: true;
  /**
   * Which key the route wants: none, an sdk key (or secret), or a secret key.
   * The edge enforces it before reading the body; handlers read req.principal.
   */
  auth: 'none' | 'sdk' | 'secret';
  /** A request without any Authorization header passes with no principal (a broken or unknown key is still refused). */
  keyOptional?: boolean;
  query?: GenericSchema;
  requestBody?: GenericSchema;
  /** Success responses by status; a schema, or a media type for non-JSON bodies. */
  responses: Record<number, { description: string; schema?: GenericSchema; mediaType?: string }>;
}

export interface Route {
  handler: (req: Request) => Reply | Promise<Reply>;
  /** Read the body, up to this many bytes, before calling the handler; 413 past it. */
  maxBody?: number;
  doc: RouteDoc;
}

export interface RouteDefinition extends Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  pattern: string;
}
