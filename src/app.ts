/**
 * Builds and starts a server: opens the database, migrates it, creates the
 * first project on an empty database, binds every feature's routes and
 * listens. The CLI's `serve` and the tests both start servers through here.
 */
import fs from 'node:fs';
import { authApi, membersApi } from './accounts/routes.ts';
import { cliChange } from './audit/cli-change.ts';
import { auditApi } from './audit/routes.ts';
import type { ServeConfig } from './config.ts';
import { seed } from './config-dir/seed.ts';
import { type AppContext, createContext } from './context.ts';
import { dashboardApi } from './dashboard/routes.ts';
import { eventNamesApi } from './events/names/routes.ts';
import { eventsApi } from './events/routes.ts';
import { experimentsApi } from './experiments/routes.ts';
import { healthApi } from './health/routes.ts';
import type { EdgePolicy } from './http/policy.ts';
import type { ProblemCode } from './http/problem.ts';
import { RateLimiter } from './http/rate-limit.ts';
import type { Route, RouteDefinition } from './http/route.ts';
import { Router } from './http/router.ts';
import { HttpServer, type ServerOptions } from './http/server.ts';
import { identityApi } from './identity/routes.ts';
import { integrationsApi } from './integrations/routes.ts';
import { keysApi } from './keys/routes.ts';
import { Logger } from './log.ts';
import { httpMetrics } from './metrics/http.ts';
import { processMetrics } from './metrics/process.ts';
import { metricsApi, metricsRoute } from './metrics/routes.ts';
import { openApiApi } from './openapi/routes.ts';
import { paywallDraftsApi } from './paywalls/draft/routes.ts';
import { fallbackApi } from './paywalls/fallback/routes.ts';
import { resolveApi } from './paywalls/resolve/routes.ts';
import { paywallsApi } from './paywalls/routes.ts';
import { placementAnswerApi } from './placements/answer/routes.ts';
import { PlacementFallbacks } from './placements/fallback.ts';
import { placementsApi } from './placements/routes.ts';
import { productsApi } from './products/routes.ts';
import { writeKeysFile } from './projects/keys-file.ts';
import type { CreatedProject } from './projects/store.ts';
import { purchasesApi } from './purchases/routes.ts';
import { openServerDatabase } from './storage/server-database.ts';
import { templatesApi } from './templates/routes.ts';
import { TemplateGallery } from './templates/service.ts';
import { webhooksApi } from './webhooks/routes.ts';

/** Every feature's routes, in one list: each feature gets the services it uses, never the whole context. */
function featureRoutes(ctx: AppContext): RouteDefinition[] {
  return [
    ...healthApi(ctx.health),
    ...metricsApi(ctx.metrics),
    ...keysApi(ctx.keys),
    ...productsApi(ctx.products),
    ...paywallsApi(ctx.paywallManager),
    ...paywallDraftsApi(ctx.drafts),
    ...resolveApi(ctx.paywalls, ctx.explainer, ctx.facts),
    ...fallbackApi(ctx.paywalls, ctx.fallbackBundles, new PlacementFallbacks(ctx.placements)),
    ...eventsApi(ctx.events, { requireKey: ctx.config.requireKey }),
    ...experimentsApi(ctx.experiments),
    ...identityApi(ctx.identity),
    ...purchasesApi(ctx.purchases),
    ...integrationsApi(ctx.integrations),
    ...eventNamesApi(ctx.eventNames),
    ...authApi(ctx.sessions, ctx.members),
    ...membersApi(ctx.members),
    ...auditApi(ctx.audit),
    ...placementsApi(ctx.placementManager, ctx.placementResults),
    ...placementAnswerApi(ctx.placementAnswers),
    ...templatesApi(new TemplateGallery()),
    ...webhooksApi(ctx.webhooks),
    ...dashboardApi(),
  ];
}

/** One answer of the edge, with the route that gave it (none when no route matched: 404, 405, preflights). */
export interface Answer {
  route: { method: string; pattern: string } | undefined;
  status: number;
  problem: ProblemCode | undefined;
}

export interface StartOptions {
  /** Told of every answer (the test suite compares them with the OpenAPI document). */
  onAnswer?: (answer: Answer) => void;
  /** Told of the project an empty database got, as soon as it exists: before seeding and listening, which may still fail. */
  onBootstrap?: (created: CreatedProject) => void;
}

/** The edge's observe hook: the metrics, and onAnswer when given. */
function observer(router: Router<Route>, metrics: AppContext['metrics'], onAnswer: StartOptions['onAnswer']): ServerOptions['observe'] {
  const listed = router.routes();
  const observeMetrics = httpMetrics(metrics, listed);
  if (!onAnswer) return observeMetrics;
  const names = new Map<Route, Answer['route']>(listed.map(({ method, pattern, route }) => [route, { method, pattern }]));
  return (route, status, seconds, problem) => {
    observeMetrics(route, status, seconds);
    onAnswer({ route: route && names.get(route), status, problem });
  };
}

export interface RunningServer {
  port: number;
  ctx: AppContext;
  router: Router<Route>;
  /** The project created because the database was empty, with its keys (shown once). */
  bootstrap: CreatedProject | undefined;
  /** Graceful stop: no new connections, drain in-flight requests, run shutdown hooks, close the database. */
  stop(): Promise<void>;
}

function buildRouter(ctx: AppContext): Router<Route> {
  const router = new Router<Route>();
  for (const { method, pattern, ...route } of featureRoutes(ctx)) {
    // A write to a database file deleted under the server would "succeed" into a file nobody can open again.
    // (Locks and database failures are the stores' own business: each store method retries and answers database_unavailable.)
    const handler = route.handler;
    const checked: typeof handler = (req, input) => {
      ctx.health.checkFile();
      return handler(req, input);
    };
    router.add(method, pattern, { ...route, handler: method === 'GET' ? handler : checked });
  }
  // Last, so that it can document every route, its own included.
  for (const { method, pattern, ...route } of openApiApi(router)) router.add(method, pattern, route);
  return router;
}

/** `--metrics-port`: /metrics without a key, on a listener of its own bound to localhost only. */
async function startMetricsListener(ctx: AppContext, port: number): Promise<HttpServer> {
  const router = new Router<Route>();
  const { method, pattern, ...route } = metricsRoute(ctx.metrics, 'none');
  router.add(method, pattern, route);
  const server = new HttpServer({ router, log: ctx.log });
  await server.listen('127.0.0.1', port);
  return server;
}

/** The limits and CORS the edge enforces; each rate limiter's refusals are counted in /metrics. */
function edgePolicy(config: ServeConfig, metrics: AppContext['metrics']): EdgePolicy {
  const limiter = (perSecond: number) => (perSecond > 0 ? new RateLimiter(perSecond, perSecond * 2) : undefined);
  const sdkLimiter = limiter(config.rateLimitSdk);
  const managementLimiter = limiter(config.rateLimitApi);
  const hooksLimiter = limiter(config.rateLimitHooks);
  const hooksPathLimiter = limiter(config.rateLimitHooksProject);
  metrics.gauge(
    'paywalld_rate_limited_total',
    'Requests refused with 429, by limit: sdk (per client IP), management (per API key), hooks (per client IP) or hooks_project (per project and provider).',
    () => [
      [{ limit: 'sdk' }, sdkLimiter?.refused ?? 0],
      [{ limit: 'management' }, managementLimiter?.refused ?? 0],
      [{ limit: 'hooks' }, hooksLimiter?.refused ?? 0],
      [{ limit: 'hooks_project' }, hooksPathLimiter?.refused ?? 0],
    ],
    'counter',
  );
  return {
    sdkLimiter,
    managementLimiter,
    hooksLimiter,
    hooksPathLimiter,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    bodyTimeoutMs: config.bodyTimeoutMs,
  };
}

export async function startServer(
  config: ServeConfig,
  log = new Logger(config.logLevel, { requestLinesPerSecond: config.requestLogRate }),
  options: StartOptions = {},
): Promise<RunningServer> {
  const database = await openServerDatabase(config, log);
  const undo: (() => void)[] = [];
  let stopWatching: (() => Promise<void>) | undefined;
  try {
    // Watched before the views load: a change another instance commits meanwhile (the project an instance
    // starting beside this one creates) is either in what they load or reloads them once they are loaded.
    let reloads: (() => void)[] | undefined;
    let missed = false;
    stopWatching = await database.watch(config.watchIntervalMs, () => {
      if (reloads === undefined) missed = true;
      for (const reload of reloads ?? []) reload();
    });
    const { ctx, hooks } = await createContext(config, database, log);
    reloads = hooks.externalChange;
    if (missed) for (const reload of reloads) reload();
    // One server at a time checks and fills an empty database: instances starting at once on PostgreSQL create one project.
    const bootstrap = await database.exclusively(async (): Promise<CreatedProject | undefined> => {
      if (!(await ctx.projects.isEmpty())) return undefined;
      const change = cliChange('serve (first start)');
      const created = await ctx.projects.create('default', change);
      // The first owner: whoever opens this link names their email and password (docs/guide/teams.md).
      return { ...created, invitation: await ctx.members.invite(created.project.id, null, 'owner', change) };
    });
    if (bootstrap) await ctx.auth.reload();
    if (config.keysFile !== undefined && !bootstrap) {
      log.info('keys file not written: the database has a project already, whose keys are stored as hashes only', { keys_file: config.keysFile });
    } else if (config.keysFile !== undefined && bootstrap) {
      writeKeysFile(config.keysFile, bootstrap);
      // Keys of a temporary database about to be discarded would mislead the harness that reads them;
      // a kept database keeps its project when the start fails, and the file is its keys' only copy.
      if (database.temporary) undo.push(() => fs.rmSync(config.keysFile!, { force: true }));
    }
    // Handed over at once: a start that fails from here (a busy port, a bad seed) keeps the project, so its keys must be out already.
    if (bootstrap) options.onBootstrap?.(bootstrap);
    if (config.seedDir !== undefined) await seed(ctx, config.seedDir, bootstrap);
    // Start-up may wait for a lock (migrations); serving must not.
    database.serving();
    const router = buildRouter(ctx);
    processMetrics(ctx.metrics);
    database.registerMetrics(ctx.metrics);
    const server = new HttpServer({
      router,
      log,
      auth: ctx.auth,
      sessions: ctx.sessions,
      policy: edgePolicy(config, ctx.metrics),
      observe: observer(router, ctx.metrics, options.onAnswer),
    });
    const port = await server.listen(config.host, config.port);
    let metricsServer: HttpServer | undefined;
    try {
      if (config.metricsPort !== undefined) metricsServer = await startMetricsListener(ctx, config.metricsPort);
    } catch (error) {
      await server.close(0);
      throw error;
    }
    // Once nothing can fail the start any more: the startup's own undo knows nothing of them.
    for (const start of hooks.start) await start();
    const stopBackups = config.backups && database.scheduleBackups?.(config.backups, log);
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        ctx.lifecycle.draining = true;
        await Promise.all([server.close(config.drainTimeoutMs), metricsServer?.close(config.drainTimeoutMs)]);
        await stopWatching?.();
        await stopBackups?.();
        for (const listener of hooks.shutdown) await listener();
        await database.close();
        log.flush();
      })());
    return { port, ctx, router, bootstrap, stop };
  } catch (error) {
    await stopWatching?.();
    await database.close();
    for (const step of undo) step();
    throw error;
  }
}
