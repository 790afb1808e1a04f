import type { GenericSchema } from 'valibot';
import type { Reply } from './reply.ts';
import type { Request } from './request.ts';

/** How a route is documented in /api/openapi.json. Every route has one, so the document cannot miss a route. */
export interface RouteDoc {
  summary: string;
  tag: string;
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
