/**
 * `serve --seed DIR`: applies a configuration directory and publishes it
 * (the paywalls paywalld.json lists, or all) before the port opens, so a CI
 * job gets a ready server with known paywalls from one command.
 */
import { cliChange } from '../audit/cli-change.ts';
import type { Logger } from '../log.ts';
import type { LivePaywalls } from '../paywalls/live.ts';
import type { PaywallManager } from '../paywalls/management.ts';
import type { PlacementManager } from '../placements/management.ts';
import type { ProductManager } from '../products/service.ts';
import type { CreatedProject, Project } from '../projects/store.ts';
import type { Storage } from '../storage/storage.ts';
import { applyPlan } from './apply.ts';
import { makePlan } from './plan.ts';
import { StoreBackend } from './store-backend.ts';
import { formatDiagnostic, validateDirectory } from './validate.ts';

/** What seeding uses of the server: its storage, log and services. */
interface SeedServices {
  storage: Storage;
  log: Logger;
  projects: { list(): Promise<Project[]> };
  paywalls: LivePaywalls;
  paywallManager: PaywallManager;
  products: ProductManager;
  placementManager: PlacementManager;
}

/** The project seeded: the one created at start, else the database's only one. */
async function seedProject(ctx: SeedServices, created: CreatedProject | undefined): Promise<string> {
  if (created) return created.project.id;
  const projects = await ctx.projects.list();
  if (projects.length === 1) return projects[0]!.id;
  throw new Error(`--seed needs an empty database or one with a single project; this one has ${projects.length}`);
}

export async function seed(ctx: SeedServices, dir: string, created: CreatedProject | undefined): Promise<void> {
  const { errors, desired } = validateDirectory(dir);
  if (!desired) throw new Error(`--seed ${dir} is not valid:\n${errors.map((e) => formatDiagnostic(e, 'error')).join('\n')}`);
  const projectId = await seedProject(ctx, created);
  const backend = new StoreBackend(ctx.storage, projectId, ctx, `project ${projectId}`, cliChange('serve --seed'));
  const plan = await makePlan(desired, backend, { publish: true, prune: false });
  await applyPlan(plan, backend, () => {});
  ctx.log.info('seeded', { dir, project_id: projectId, steps: plan.steps.length, live: ctx.paywalls.compiledCount() });
}
