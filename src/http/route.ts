/**
 * A route is declared once: its pattern, what it takes (path parameters,
 * query, JSON body, each a valibot schema) and what it answers. The edge
 * parses the input from that declaration and hands the handler typed values
 * (input.ts), and the OpenAPI document is built from the same declaration
 * (openapi.ts): no schema is named twice.
 */
import type * as v from 'valibot';
import type { ErrorCode } from '../shared/errors.ts';
import type { JsonValue } from '../shared/json.ts';
import type { Permission } from '../shared/roles.ts';
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
   * edge's own (auth, rate limit, body, JSON, path, query) are added from the
   * rest of the declaration (route-errors.ts); the OpenAPI document lists
   * both, and a test fails when the test suite sees a route answer a code it
   * does not declare.
   */
  errors: readonly ProblemCode[];
  /** A page for a browser (the dashboard), not part of the API: left out of the OpenAPI document. */
  browser?: true;
  /**
   * Which key the route wants: none, an sdk key (or secret; or a signed-in
   * person when the route says `access`), a secret key or a signed-in person
   * (`secret`, with `access`), or a signed-in person only
   * (`session`: their own account, no project). The edge enforces it before
   * reading the body (a session's lookup runs beside the body's arrival);
   * handlers read req.principal and req.session.
   */
  auth: 'none' | 'sdk' | 'secret' | 'session';
  /**
   * What a signed-in person's role must allow to call a `secret` route
   * (shared/roles.ts): a secret key may do everything in its project. The
   * server refuses to start with a `secret` route that does not say. An
   * `sdk` route that says it takes a signed-in person too (the template
   * gallery, which the dashboard reads with a session).
   */
  access?: Permission;
  /** A request without any Authorization header passes with no principal (a broken or unknown key is still refused). */
  keyOptional?: boolean;
  /**
   * A keyless route limited per client IP and per path (a store's
   * notifications to one project): its verification costs the server
   * work before it knows who sent it.
   */
  limit?: 'hooks';
  /** Success responses by status; a schema, or a media type for non-JSON bodies. */
  responses: Record<number, { description: string; schema?: v.GenericSchema; mediaType?: string }>;
}

/** The names of a pattern's `:name` segments: `'/api/paywalls/:id/revisions/:revision'` gives `'id' | 'revision'`. */
type ParamKeys<Pattern extends string> = Pattern extends `${string}/:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | ParamKeys<`/${Tail}`>
    : Rest
  : never;

/**
 * A path parameter with a rule. A segment that breaks it names nothing
 * (`/revisions/abc`), so it answers 404 with `missing`'s code and detail.
 */
export interface PathParam<T> {
  schema: v.GenericSchema<string, T>;
  missing: { code: ErrorCode; detail: string };
}

/**
 * A query read by its own code, documented by `schema`: the resolve hot path
 * scans the raw query once instead of running valibot (its reader refuses
 * what the schema refuses, with the schema's issues).
 */
interface QueryReader<T> {
  schema: v.GenericSchema;
  read(req: Request): T;
}

/** Declares a QueryReader, `read`'s result typing the handler's `query`. */
export function queryReader<T>(schema: v.GenericSchema, read: (req: Request) => T): QueryReader<T> {
  return { schema, read };
}

/**
 * A JSON body with rules beyond its schema: `refuse` sees the body's size
 * before it is parsed (a document over its limit answers 422, not a parse
 * error), then the schema parses it.
 */
interface SizedBody<S extends v.GenericSchema> {
  schema: S;
  refuse(bytes: number): void;
}

/**
 * A JSON body read by its own code in place of the schema's parse (a batch
 * refused with its own codes, or a document its service checks in depth,
 * errors at JSON pointers into it); `schema` documents it.
 */
interface BodyReader<T> {
  schema: v.GenericSchema;
  refuse?(bytes: number): void;
  read(value: JsonValue): T;
}

/**
 * A JSON document that its service checks in depth, with errors at JSON
 * pointers into it (a paywall document): `schema` documents it, the handler
 * gets the JSON value as sent.
 */
export function jsonDocument(schema: v.GenericSchema, refuse?: (bytes: number) => void): BodyReader<JsonValue> {
  return refuse ? { schema, refuse, read: (value) => value } : { schema, read: (value) => value };
}

/**
 * A JSON body that its handler parses itself, once it has checked where the
 * bytes come from (a store's signed notification): the edge checks only its
 * media type, so a keyless caller's body costs no parse. `schema` documents it.
 */
interface UnparsedJson {
  schema: v.GenericSchema;
  unparsed: true;
}

export function unparsedJson(schema: v.GenericSchema): UnparsedJson {
  return { schema, unparsed: true };
}

/**
 * What a route takes. A query schema answers 400 invalid_query when the
 * query does not fit; a body schema 415 for a body that is not JSON, 400
 * malformed_json, 422 validation_failed when it does not fit. A body schema
 * that accepts undefined (`v.optional`) makes the body optional: an empty
 * one is undefined, whatever its Content-Type.
 */
export type QuerySpec = v.GenericSchema | QueryReader<unknown>;
export type BodySpec = v.GenericSchema | SizedBody<v.GenericSchema> | BodyReader<unknown> | UnparsedJson;
type ParamSpecs<Pattern extends string> = { [K in ParamKeys<Pattern>]?: PathParam<unknown> };

type QueryOf<Q> = Q extends v.GenericSchema ? v.InferOutput<Q> : Q extends QueryReader<infer T> ? T : undefined;
type BodyOf<B> = B extends v.GenericSchema
  ? v.InferOutput<B>
  : B extends UnparsedJson
    ? Buffer
    : B extends BodyReader<infer T>
      ? T
      : B extends SizedBody<infer S>
        ? v.InferOutput<S>
        : undefined;
type ParamsOf<Pattern extends string, P> = {
  readonly [K in ParamKeys<Pattern>]: K extends keyof P ? (P[K] extends PathParam<infer T> ? T : string) : string;
};

/** The parsed input a handler receives: path parameters (percent-decoded), query and body. */
interface RouteInput<Pattern extends string, P, Q, B> {
  params: ParamsOf<Pattern, P>;
  query: QueryOf<Q>;
  body: BodyOf<B>;
}

/** A route as the router keeps it, its input erased. */
export interface Route {
  handler: (req: Request, input: AnyInput) => Reply | Promise<Reply>;
  /** Read the body, up to this many bytes, before calling the handler; 413 past it. Routes with a `body` have one. */
  maxBody?: number;
  params?: Readonly<Record<string, PathParam<unknown>>>;
  query?: QuerySpec;
  body?: BodySpec;
  doc: RouteDoc;
}

export interface AnyInput {
  params: Readonly<Record<string, unknown>>;
  query: unknown;
  body: unknown;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface RouteDefinition extends Route {
  method: Method;
  pattern: string;
}

/** A route as a feature writes it: the handler's input is typed from the pattern and the schemas. */
interface TypedRoute<Pattern extends string, P extends ParamSpecs<Pattern>, Q extends QuerySpec | undefined, B extends BodySpec | undefined> {
  method: Method;
  pattern: Pattern;
  params?: P;
  query?: Q;
  body?: B;
  maxBody?: number;
  doc: RouteDoc;
  handler: (req: Request, input: RouteInput<Pattern, P, Q, B>) => Reply | Promise<Reply>;
}

/** Declares a route. The types of `input` come from the declaration; the edge parses before the handler runs. */
export function route<
  const Pattern extends string,
  P extends ParamSpecs<Pattern> = Record<never, never>,
  Q extends QuerySpec | undefined = undefined,
  B extends BodySpec | undefined = undefined,
>(definition: TypedRoute<Pattern, P, Q, B>): RouteDefinition {
  return definition as unknown as RouteDefinition;
}
