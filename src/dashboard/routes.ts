import type { Reply } from '../http/reply.ts';
import type { RouteDefinition } from '../http/route.ts';
import { DomainError } from '../shared/errors.ts';
import { loadDashboardFiles } from './files.ts';
import { DashboardFiles, SECURITY_HEADERS } from './serve.ts';

const HOME = '/dashboard/';

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
  let files: Promise<DashboardFiles> | undefined;
  const load = () => (files ??= loadDashboardFiles().then((list) => new DashboardFiles(list)));
  const serve = async (name: string, ifNoneMatch: string, acceptEncoding: string): Promise<Reply> => {
    const reply = (await load()).reply(name, ifNoneMatch, acceptEncoding);
    if (!reply) throw notFound();
    return reply;
  };
  const doc = (summary: string, responses: RouteDefinition['doc']['responses']): RouteDefinition['doc'] => ({ summary, tag: 'dashboard', auth: 'none', responses });
  return [
    {
      method: 'GET',
      pattern: '/',
      doc: doc('Leads a browser to the dashboard', { 302: { description: 'to /dashboard/' } }),
      handler: () => redirect(HOME),
    },
    {
      method: 'GET',
      pattern: '/dashboard',
      doc: doc('Leads a browser to the dashboard', { 302: { description: 'to /dashboard/' } }),
      handler: () => redirect(HOME),
    },
    {
      method: 'GET',
      pattern: HOME,
      doc: doc('The web dashboard (sign in with a secret key)', { 200: { description: 'the page', mediaType: 'text/html' } }),
      handler: (req) => serve('index.html', req.header('if-none-match'), req.header('accept-encoding')),
    },
    {
      method: 'GET',
      pattern: '/dashboard/assets/:name',
      doc: doc('A script or stylesheet of the dashboard; its name changes with its content, so it may be cached for a year', {
        200: { description: 'the file (text/javascript or text/css)', mediaType: 'text/javascript' },
      }),
      handler: (req) => serve(`assets/${req.params.name!}`, req.header('if-none-match'), req.header('accept-encoding')),
    },
  ];
}
