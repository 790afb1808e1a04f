/**
 * Each role's allowed and refused management routes, walked from the
 * server's own route table: a route this table does not name fails, so a
 * new route says here who may call it (docs/guide/teams.md, "Roles").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Role } from '../../src/shared/roles.ts';
import { asPerson, firstOwner, member, type Person } from '../helpers/accounts.ts';
import { startTestServer } from '../helpers/server.ts';

const EVERYONE: Role[] = ['owner', 'editor', 'analyst', 'viewer'];
const ANALYSTS: Role[] = ['owner', 'analyst'];
const EDITORS: Role[] = ['owner', 'editor'];
const OWNERS: Role[] = ['owner'];

/** Who may call each management route, by operationId: written out, not derived from the routes' declarations. */
const ALLOWED: Record<string, Role[]> = {
  // Configuration and results: every role reads them.
  listProducts: EVERYONE,
  getProduct: EVERYONE,
  listPaywalls: EVERYONE,
  getPaywall: EVERYONE,
  listPaywallRevisions: EVERYONE,
  getPaywallRevision: EVERYONE,
  listPaywallPhases: EVERYONE,
  validatePaywall: EVERYONE,
  previewPaywall: EVERYONE,
  getPaywallStats: EVERYONE,
  getPaywallResults: EVERYONE,
  listPlacements: EVERYONE,
  getPlacement: EVERYONE,
  listPlacementRevisions: EVERYONE,
  getPlacementRevision: EVERYONE,
  getPlacementResults: EVERYONE,
  // Everything but secrets: exports, keys and connectors as listed, members, the audit log, the server's metrics.
  exportEvents: ANALYSTS,
  listKeys: ANALYSTS,
  getIntegration: ANALYSTS,
  listMembers: ANALYSTS,
  listAuditLog: ANALYSTS,
  getMetrics: ANALYSTS,
  listWebhooks: ANALYSTS,
  getWebhook: ANALYSTS,
  listWebhookDeliveries: ANALYSTS,
  listEventNames: ANALYSTS,
  // Products and paywalls: write, publish, roll back, archive.
  putProduct: EDITORS,
  deleteProduct: EDITORS,
  putPaywall: EDITORS,
  publishPaywall: EDITORS,
  archivePaywall: EDITORS,
  putPlacement: EDITORS,
  archivePlacement: EDITORS,
  // Members, keys, connectors, purchase records.
  createKey: OWNERS,
  revokeKey: OWNERS,
  putIntegration: OWNERS,
  recordPurchases: OWNERS,
  inviteMember: OWNERS,
  changeMember: OWNERS,
  removeMember: OWNERS,
  putWebhook: OWNERS,
  deleteWebhook: OWNERS,
  testWebhook: OWNERS,
  retryWebhookDelivery: OWNERS,
  clearEventNames: OWNERS,
};

test('each role may call exactly the management routes its row allows; the others answer 403 forbidden naming the role needed', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const people: Record<Role, Person> = {
    owner,
    editor: await member(server, owner, 'editor'),
    analyst: await member(server, owner, 'analyst'),
    viewer: await member(server, owner, 'viewer'),
  };
  const routes = server.server.router.routes().filter(({ route }) => route.doc.auth === 'secret');
  assert.deepEqual(
    routes.map(({ route }) => route.doc.operationId).sort(),
    Object.keys(ALLOWED).sort(),
    'every management route has a row, and every row a route',
  );
  for (const { method, pattern, route } of routes) {
    // Paths name no real member or key (`nobody`): the loop changes nobody's role while it walks.
    const path = pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => (name === 'project' ? server.projectId : name === 'revision' ? '1' : 'nobody'));
    for (const role of ['viewer', 'analyst', 'editor', 'owner'] as const) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...asPerson(people[role]), ...(route.maxBody === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(route.maxBody === undefined ? {} : { body: '{}' }),
      });
      const text = await response.text();
      const label = `${role} ${method} ${pattern}: ${response.status} ${text.slice(0, 200)}`;
      if (ALLOWED[route.doc.operationId]!.includes(role)) {
        assert.notEqual(response.status, 403, label);
        assert.notEqual(response.status, 401, label);
      } else {
        assert.equal(response.status, 403, label);
        const body = JSON.parse(text);
        assert.equal(body.code, 'forbidden', label);
        assert.match(body.detail, new RegExp(`^this needs the ${ALLOWED[route.doc.operationId]!.join(' or ')} role; you are ${role} in this project$`), label);
      }
    }
  }
});
