/**
 * The window between reading the target and writing to it: every write names
 * the ETag read, so an edit made in that window is refused by the target
 * itself. Driven through the backends directly, to put the edit exactly there.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ApplyError, applyPlan } from '../../src/config-dir/apply.ts';
import { HttpBackend } from '../../src/config-dir/http-backend.ts';
import { makePlan } from '../../src/config-dir/plan.ts';
import type { DesiredState } from '../../src/config-dir/state.ts';
import { StoreBackend } from '../../src/config-dir/store-backend.ts';
import { validateDirectory } from '../../src/config-dir/validate.ts';
import { configurationServices } from '../../src/context.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { Logger } from '../../src/log.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { EXAMPLE } from '../helpers/config-dir.ts';
import { startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

function desired(): DesiredState {
  const { desired } = validateDirectory(EXAMPLE);
  assert.ok(desired);
  return desired;
}

/** The example with a new onboarding title and a renamed product: a plan of a product change and a new revision. */
function edited(): DesiredState {
  const state = desired();
  const onboarding = state.paywalls.find((p) => p.id === 'onboarding')!;
  onboarding.document = { ...onboarding.document, strings: { ...onboarding.document.strings, en: { ...onboarding.document.strings.en, title: 'Edited' } } };
  state.products = state.products.map((p) => (p.id === 'pro_annual' ? { ...p, name: 'Renamed' } : p));
  return state;
}

test('database target: an edit between plan and write is refused and the whole apply rolls back', async (t) => {
  const db = openDatabase(path.join(tempDir(t), 'paywalld.db'));
  migrate(db);
  const storage = openSqliteStorage(db);
  t.after(() => storage.close());
  const services = await configurationServices(storage, new Logger('error'));
  const { project } = await services.projects.create('acme', TEST_CHANGE);
  const backend = new StoreBackend(storage, project.id, services, 'test.db', TEST_CHANGE);
  await applyPlan(await makePlan(desired(), backend, { publish: true, prune: false }), backend, () => {});

  const plan = await makePlan(edited(), backend, { publish: true, prune: false });
  assert.deepEqual(
    plan.steps.map((s) => s.kind),
    ['update-product', 'update-paywall', 'publish'],
  );
  const dashboard = services.paywallManager;
  const { document } = await dashboard.get(project.id, 'onboarding');
  await dashboard.write(project.id, 'onboarding', { ...(document as object), name: 'Edited in the dashboard' }, { ifMatch: '', ifNoneMatch: '' }, TEST_CHANGE);

  const done: string[] = [];
  await assert.rejects(
    applyPlan(plan, backend, (line) => done.push(line)),
    (error: unknown) => {
      assert.ok(error instanceof ApplyError);
      assert.match(
        error.message,
        /^new revision of paywall onboarding failed: it was changed on test\.db after it was read \(paywall onboarding: precondition_failed: .*\)\. Run plan again to see the change\. Nothing was changed\.$/,
      );
      return true;
    },
  );
  assert.deepEqual(done, [], 'nothing is reported done when the transaction rolled back');
  assert.equal((await storage.products.get(project.id, 'pro_annual'))?.product.name, 'Pro Annual', 'the product change of the same apply was rolled back');
  assert.equal((await dashboard.get(project.id, 'onboarding')).row.name, 'Edited in the dashboard');
});

test('server target: the write carries If-Match, the server refuses it, and apply says what was done before', async (t) => {
  const server = await startTestServer(t);
  const backend = new HttpBackend(server.url, server.keys.secret);
  await applyPlan(await makePlan(desired(), backend, { publish: true, prune: false }), backend, () => {});

  const plan = await makePlan(edited(), backend, { publish: true, prune: false });
  const current = await (await fetch(`${server.url}/api/paywalls/onboarding`, { headers: { authorization: `Bearer ${server.keys.secret}` } })).json();
  const edit = await fetch(`${server.url}/api/paywalls/onboarding`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${server.keys.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...current.document, name: 'Edited in the dashboard' }),
  });
  assert.equal(edit.status, 200);

  const done: string[] = [];
  await assert.rejects(
    applyPlan(plan, backend, (line) => done.push(line)),
    (error: unknown) => {
      assert.ok(error instanceof ApplyError);
      assert.match(
        error.message,
        /new revision of paywall onboarding failed: it was changed on http:\/\/127\.0\.0\.1:\d+ after it was read \(paywall onboarding: 412 precondition_failed: /,
      );
      assert.match(error.message, /Done before the failure: change product pro_annual; nothing after it\.$/);
      return true;
    },
  );
  assert.deepEqual(done, ['change product pro_annual']);
  const after = await (await fetch(`${server.url}/api/paywalls/onboarding`, { headers: { authorization: `Bearer ${server.keys.secret}` } })).json();
  assert.equal(after.name, 'Edited in the dashboard', 'the edit was not overwritten');
  assert.equal(after.live_revision, 1, 'nothing was published');
});
