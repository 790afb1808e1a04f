/**
 * What applying a directory would do to a target: the steps, in the order
 * they run (products before the paywalls that name them, placements after
 * the paywalls they show are published, archiving before deleting the
 * products it frees), each with the ETag it expects.
 */
import { phaseDesign, startsPhase } from '../experiments/phases.ts';
import type { PaywallOutput } from '../paywalls/document/schema.ts';
import { CompiledPaywall } from '../paywalls/resolve/compiled.ts';
import type { PlacementDocument } from '../placements/schema.ts';
import type { ConfigBackend } from './backend.ts';
import { canonicalJson, jsonDiff } from './diff.ts';
import type { CurrentPaywall, CurrentState, DesiredState, ProductContent } from './state.ts';

type Step =
  | { kind: 'create-product'; id: string; content: ProductContent }
  | { kind: 'update-product'; id: string; content: ProductContent; ifMatch: string; diff: string[] }
  | { kind: 'create-paywall'; id: string; document: PaywallOutput }
  | { kind: 'update-paywall'; id: string; document: PaywallOutput; ifMatch: string; diff: string[] }
  /**
   * `revision` undefined: the revision the paywall's write step creates.
   * `startsPhase`: whether the publish starts a new experiment phase, by the
   * server's rule (experiments/phases.ts): the split differs from the live one.
   */
  | { kind: 'publish'; id: string; revision: number | undefined; ifMatch: string | undefined; startsPhase: boolean }
  | { kind: 'archive'; id: string; ifMatch: string }
  | { kind: 'delete-product'; id: string; ifMatch: string }
  | { kind: 'create-placement'; id: string; document: PlacementDocument }
  /** A new revision; of an archived placement too, which it serves again. */
  | { kind: 'update-placement'; id: string; document: PlacementDocument; ifMatch: string; diff: string[] }
  | { kind: 'archive-placement'; id: string; ifMatch: string };

export interface PlanOptions {
  publish: boolean;
  prune: boolean;
}

export interface Plan {
  target: string;
  steps: Step[];
  unchanged: { products: string[]; paywalls: string[]; placements: string[] };
  /** Things left as they are, and why (not in the directory without --prune, not published without --publish, …). */
  notes: string[];
  /** The ETag of everything the target held when the plan was made: what a saved plan is checked against. */
  base: Record<string, string>;
}

/** The products a paywall's live revision keeps from being deleted: the same set the server checks. */
function productsInSlots(id: string, document: PaywallOutput): ReadonlySet<string> {
  return new CompiledPaywall({ paywallId: id, revision: 1, document, product: () => undefined }).productIds;
}

/** The ETag of each product and paywall the target holds, by `product:ID` and `paywall:ID`. */
export function baseOf(current: CurrentState): Record<string, string> {
  const base: Record<string, string> = {};
  for (const product of current.products) base[`product:${product.id}`] = product.tag;
  for (const paywall of current.paywalls) base[`paywall:${paywall.id}`] = paywall.tag;
  for (const placement of current.placements) base[`placement:${placement.id}`] = placement.tag;
  return base;
}

function productSteps(desired: DesiredState, current: CurrentState, plan: Plan): void {
  const existing = new Map(current.products.map((p) => [p.id, p]));
  for (const product of desired.products) {
    const content: ProductContent = { name: product.name, store_ids: product.store_ids };
    const now = existing.get(product.id);
    if (!now) plan.steps.push({ kind: 'create-product', id: product.id, content });
    else if (canonicalJson(content) === canonicalJson({ name: now.name, store_ids: now.store_ids })) plan.unchanged.products.push(product.id);
    else {
      const diff = jsonDiff({ name: now.name, store_ids: now.store_ids }, content);
      plan.steps.push({ kind: 'update-product', id: product.id, content, ifMatch: now.tag, diff });
    }
  }
}

/**
 * Whether publishing `document` starts a new phase: the server starts one
 * when the split differs from the current phase's, which is the live
 * revision's (a publish that keeps the split keeps the phase); none before
 * the first publication.
 */
async function publishStartsPhase(now: CurrentPaywall | undefined, document: PaywallOutput, backend: ConfigBackend): Promise<boolean> {
  if (now?.liveRevision === null || now === undefined) return true;
  return startsPhase({ design: JSON.stringify(phaseDesign(await liveDocument(now, backend))) }, phaseDesign(document));
}

async function paywallSteps(desired: DesiredState, current: CurrentState, options: PlanOptions, backend: ConfigBackend, plan: Plan): Promise<void> {
  const existing = new Map(current.paywalls.map((p) => [p.id, p]));
  const publishes: Step[] = [];
  for (const { id, document } of desired.paywalls) {
    const now = existing.get(id);
    const changed = !now || canonicalJson(now.document) !== canonicalJson(document);
    if (!now) plan.steps.push({ kind: 'create-paywall', id, document });
    else if (changed) plan.steps.push({ kind: 'update-paywall', id, document, ifMatch: now.tag, diff: jsonDiff(now.document, document) });
    else plan.unchanged.paywalls.push(id);
    const meantLive = desired.live.has(id);
    if (!meantLive) {
      if (now?.status === 'live') plan.notes.push(`paywall ${id} stays live: paywalld.json does not list it, and apply never unpublishes`);
      continue;
    }
    const needsPublish = changed || now.status !== 'live' || now.liveRevision !== now.revision;
    if (!needsPublish) continue;
    if (options.publish) {
      const starts = await publishStartsPhase(now, document, backend);
      publishes.push({ kind: 'publish', id, revision: changed ? undefined : now!.revision, ifMatch: changed ? undefined : now!.tag, startsPhase: starts });
    } else plan.notes.push(`paywall ${id} is not published: its ${changed ? 'new' : 'newest'} revision goes live with apply --publish`);
  }
  plan.steps.push(...publishes);
}

/** Placements the directory has (after the paywalls they name are published), and those of the target it does not. */
function placementSteps(desired: DesiredState, current: CurrentState, options: PlanOptions, plan: Plan): void {
  const existing = new Map(current.placements.map((p) => [p.id, p]));
  for (const { id, document } of desired.placements) {
    const now = existing.get(id);
    if (!now) plan.steps.push({ kind: 'create-placement', id, document });
    else if (now.status === 'archived' || canonicalJson(now.document) !== canonicalJson(document)) {
      plan.steps.push({ kind: 'update-placement', id, document, ifMatch: now.tag, diff: jsonDiff(now.document, document) });
    } else plan.unchanged.placements.push(id);
  }
  const inDirectory = new Set(desired.placements.map((p) => p.id));
  for (const placement of current.placements) {
    if (placement.status === 'archived' || inDirectory.has(placement.id)) continue;
    if (options.prune) plan.steps.push({ kind: 'archive-placement', id: placement.id, ifMatch: placement.tag });
    else plan.notes.push(`placement ${placement.id} is left alone: it is not in the directory (apply --prune archives it)`);
  }
}

/** Paywalls and products of the target that the directory does not have. */
async function pruneSteps(desired: DesiredState, current: CurrentState, options: PlanOptions, backend: ConfigBackend, plan: Plan): Promise<void> {
  const inDirectory = new Set(desired.paywalls.map((p) => p.id));
  const published = new Set(plan.steps.filter((s) => s.kind === 'publish').map((s) => s.id));
  // The products live paywalls will still put in slots once the steps ran: those cannot be deleted.
  const inUse = new Map<string, string>();
  const use = (paywallId: string, document: PaywallOutput) => {
    for (const productId of productsInSlots(paywallId, document)) if (!inUse.has(productId)) inUse.set(productId, paywallId);
  };
  for (const paywall of current.paywalls) {
    if (paywall.status === 'archived') continue;
    if (!inDirectory.has(paywall.id)) {
      if (options.prune) plan.steps.push({ kind: 'archive', id: paywall.id, ifMatch: paywall.tag });
      else plan.notes.push(`paywall ${paywall.id} is left alone: it is not in the directory (apply --prune archives it)`);
      if (!options.prune && paywall.liveRevision !== null) use(paywall.id, await liveDocument(paywall, backend));
      continue;
    }
    if (!published.has(paywall.id) && paywall.liveRevision !== null) use(paywall.id, await liveDocument(paywall, backend));
  }
  for (const id of published) use(id, desired.paywalls.find((p) => p.id === id)!.document);
  const wanted = new Set(desired.products.map((p) => p.id));
  for (const product of current.products) {
    if (wanted.has(product.id)) continue;
    if (!options.prune) plan.notes.push(`product ${product.id} is left alone: it is not in products.json (apply --prune deletes it)`);
    else if (inUse.has(product.id)) plan.notes.push(`product ${product.id} is kept: live paywall ${inUse.get(product.id)} still has it in a slot`);
    else plan.steps.push({ kind: 'delete-product', id: product.id, ifMatch: product.tag });
  }
}

async function liveDocument(paywall: CurrentPaywall, backend: ConfigBackend): Promise<PaywallOutput> {
  return paywall.liveRevision === paywall.revision ? paywall.document : backend.revision(paywall.id, paywall.liveRevision!);
}

export async function makePlan(desired: DesiredState, backend: ConfigBackend, options: PlanOptions): Promise<Plan> {
  const current = await backend.read();
  const plan: Plan = { target: backend.target, steps: [], unchanged: { products: [], paywalls: [], placements: [] }, notes: [], base: baseOf(current) };
  productSteps(desired, current, plan);
  await paywallSteps(desired, current, options, backend, plan);
  placementSteps(desired, current, options, plan);
  await pruneSteps(desired, current, options, backend, plan);
  return plan;
}

const VERB: Record<Step['kind'], string> = {
  'create-product': 'create product',
  'update-product': 'change product',
  'create-paywall': 'create paywall',
  'update-paywall': 'new revision of paywall',
  publish: 'publish paywall',
  archive: 'archive paywall',
  'delete-product': 'delete product',
  'create-placement': 'create placement',
  'update-placement': 'new revision of placement',
  'archive-placement': 'archive placement',
};

const MARK: Record<Step['kind'], string> = {
  'create-product': '+',
  'update-product': '~',
  'create-paywall': '+',
  'update-paywall': '~',
  publish: '^',
  archive: '-',
  'delete-product': '-',
  'create-placement': '+',
  'update-placement': '~',
  'archive-placement': '-',
};

export function describeStep(step: Step): string {
  return `${VERB[step.kind]} ${step.id}${step.kind === 'publish' ? publishDetail(step) : ''}`;
}

/** What a publish step adds: the revision it makes live, and whether the experiment starts a new phase (its results start over). */
function publishDetail(step: Extract<Step, { kind: 'publish' }>): string {
  const revision = step.revision === undefined ? '' : `revision ${step.revision}, `;
  return step.startsPhase ? ` (${revision}starts a new experiment phase: its results start over)` : ` (${revision}same experiment phase)`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** The plan as a reviewer reads it. */
export function formatPlan(plan: Plan, source: string): string[] {
  const lines: string[] = [];
  const placementCount = plan.unchanged.placements.length > 0 ? `, ${count(plan.unchanged.placements.length, 'placement')}` : '';
  if (plan.steps.length === 0) {
    lines.push(
      `No changes: ${plan.target} already matches ${source} (${count(plan.unchanged.products.length, 'product')}, ${count(plan.unchanged.paywalls.length, 'paywall')}${placementCount} unchanged).`,
    );
  } else {
    lines.push(`Plan for ${plan.target} from ${source}:`);
    for (const step of plan.steps) {
      lines.push(`  ${MARK[step.kind]} ${describeStep(step)}`);
      if (step.kind === 'update-product' || step.kind === 'update-paywall' || step.kind === 'update-placement') {
        for (const line of step.diff) lines.push(`      ${line}`);
      }
    }
    const unchanged = [
      ...plan.unchanged.products.map((id) => `product ${id}`),
      ...plan.unchanged.paywalls.map((id) => `paywall ${id}`),
      ...plan.unchanged.placements.map((id) => `placement ${id}`),
    ];
    if (unchanged.length > 0) lines.push(`  = unchanged: ${unchanged.join(', ')}`);
    lines.push(`${count(plan.steps.length, 'step')}.`);
  }
  for (const note of plan.notes) lines.push(`Note: ${note}.`);
  return lines;
}
