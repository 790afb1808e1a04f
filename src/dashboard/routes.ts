import type { Reply } from '../http/reply.ts';
import { type RouteDefinition, route } from '../http/route.ts';
import { StaticFiles } from '../http/static-files.ts';
import { DomainError } from '../shared/errors.ts';
import { loadDashboardFiles } from './files.ts';

const HOME = '/dashboard/';

/**
 * What every dashboard response carries. Scripts and styles come only from
 * this origin and never inline, so an injected string can never run; images
 * may come from https and data: URLs, videos and fonts from https, because
 * paywall documents point at them there (the preview shows them). Nothing
 * may frame the dashboard.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; media-src 'self' https:; font-src 'self' https:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

/** Hashed names change with their content, so a browser may keep them for a year; index.html is checked every time. */
const cacheControl = (name: string) => (name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable');

function redirect(location: string): Reply {
  return { status: 302, headers: { ...SECURITY_HEADERS, Location: location, 'Cache-Control': 'no-cache' } };
}

function notFound(): DomainError {
  return new DomainError('not_found', 'there is no resource at this path');
}

/**
 * The web dashboard: index.html at /dashboard/ (and / leads there), its
 * script and stylesheet under /dashboard/assets/ with hashed names. The page
 * then talks to the management API with the secret key the user signs in
 * with, like any other client. Files are prepared (gzipped, tagged) on the
 * first request, so servers that never show the dashboard never pay for it.
 */
export function dashboardApi(): RouteDefinition[] {
  let files: Promise<StaticFiles> | undefined;
  const load = () => (files ??= loadDashboardFiles().then((list) => new StaticFiles(list, { headers: SECURITY_HEADERS, cacheControl })));
  const serve = async (name: string, ifNoneMatch: string, acceptEncoding: string): Promise<Reply> => {
    const reply = (await load()).reply(name, ifNoneMatch, acceptEncoding);
    if (!reply) throw notFound();
    return reply;
  };
  // Pages for a browser: left out of the OpenAPI document, which describes the API.
  const doc = (
    operationId: string,
    summary: string,
    responses: RouteDefinition['doc']['responses'],
    errors: RouteDefinition['doc']['errors'] = [],
  ): RouteDefinition['doc'] => ({
    operationId,
    summary,
    tag: 'dashboard',
    auth: 'none',
    browser: true,
    errors,
    responses,
  });
  return [
    route({
      method: 'GET',
      pattern: '/',
      doc: doc('openHome', 'Leads a browser to the dashboard', { 302: { description: 'to /dashboard/' } }),
      handler: () => redirect(HOME),
    }),
    route({
      method: 'GET',
      pattern: '/dashboard',
      doc: doc('openDashboardFolder', 'Leads a browser to the dashboard', { 302: { description: 'to /dashboard/' } }),
      handler: () => redirect(HOME),
    }),
    route({
      method: 'GET',
      pattern: HOME,
      doc: doc('openDashboard', 'The web dashboard (sign in with a secret key)', {
        200: { description: 'the page', mediaType: 'text/html' },
        304: { description: 'If-None-Match holds the ETag' },
      }),
      handler: (req) => serve('index.html', req.header('if-none-match'), req.header('accept-encoding')),
    }),
    route({
      method: 'GET',
      pattern: '/dashboard/assets/:name',
      doc: doc(
        'getDashboardAsset',
        'A script or stylesheet of the dashboard; its name changes with its content, so it may be cached for a year',
        { 200: { description: 'the file (text/javascript or text/css)', mediaType: 'text/javascript' }, 304: { description: 'If-None-Match holds the ETag' } },
        ['not_found'],
      ),
      handler: (req, { params }) => serve(`assets/${params.name}`, req.header('if-none-match'), req.header('accept-encoding')),
    }),
  ];
}
