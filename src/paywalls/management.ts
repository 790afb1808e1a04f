import * as v from 'valibot';
import { type PhaseDesign, type PhaseOptions, type PhaseRow, phaseDesign, phaseInfo, phaseSeed, startsPhase } from '../experiments/phases.ts';
import type { PhaseStore } from '../experiments/store.ts';
import type { Actor, Change } from '../shared/change.ts';
import { DomainError, type FieldError } from '../shared/errors.ts';
import { IdSchema } from '../shared/id.ts';
import { ID_RULE } from '../shared/id-pattern.ts';
import type { JsonValue } from '../shared/json.ts';
import { entityTag, type Preconditions, requireIfMatch, requireIfNoneMatch } from '../shared/preconditions.ts';
import { STALE, untilCurrent } from '../shared/stale.ts';
import { type ProductCatalog, productsById } from './catalog.ts';
import type { ExperimentSettings } from './document/experiment.ts';
import { type DocumentError, type PaywallDeps, type PaywallOutput, PaywallSchema, validatePaywall } from './document/index.ts';
import { documentSizeErrors } from './document/limits.ts';
import { slotProducts } from './document/slot-products.ts';
import { storeCatalog } from './document/store-id-warnings.ts';
import type { PaywallWarning } from './document/warnings.ts';
import type { LivePaywalls } from './live.ts';
import type { PaywallInfo, RevisionInfo } from './schema.ts';
import type { PaywallRow, PaywallStore, RevisionRow } from './store.ts';

const iso = (ms: number) => new Date(ms).toISOString();

function status(row: PaywallRow): PaywallInfo['status'] {
  if (row.archived_at !== null) return 'archived';
  return row.live_revision === null ? 'draft' : 'live';
}

export function paywallInfo(row: PaywallRow): PaywallInfo {
  return {
    id: row.id,
    name: row.name,
    status: status(row),
    revision: row.latest_revision,
    live_revision: row.live_revision,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function revisionInfo(row: RevisionRow, paywall: PaywallRow): RevisionInfo {
  return {
    revision: row.revision,
    name: row.name,
    created_at: iso(row.created_at),
    published_at: row.published_at === null ? null : iso(row.published_at),
    live: paywall.archived_at === null && paywall.live_revision === row.revision,
    created_by: row.created_by === null ? null : (JSON.parse(row.created_by) as Actor),
  };
}

/** The split of a stored revision as publishing it sees it: the document's own defaults fill what a revision stored before a field existed lacks. */
const StoredSplitSchema = v.object({ variants: PaywallSchema.entries.variants, audiences: PaywallSchema.entries.audiences });

function storedDesign(document: unknown): PhaseDesign {
  return phaseDesign(v.parse(StoredSplitSchema, document));
}

/** A paywall's ETag: its version, which grows with every change, so a stale tag never matches again. */
export function paywallTag(row: PaywallRow): string {
  return entityTag(row.version);
}

function notFound(): DomainError {
  return new DomainError('paywall_not_found', 'no paywall with this id in the project');
}

function noSuchRevision(): DomainError {
  return new DomainError('revision_not_found', 'the paywall has no revision with this number');
}

function invalid(detail: string, errors: FieldError[]): DomainError {
  return new DomainError('validation_failed', detail, { errors });
}

/**
 * What the management API does to paywalls: every write reads the paywall,
 * checks its preconditions, validates and hands the store the version it
 * read, which stores it in one transaction only if nothing moved since
 * (shared/stale.ts; else all of it runs again). The in-memory live paywalls
 * serve the change before it is answered.
 */
export class PaywallManager {
  constructor(
    private readonly store: PaywallStore,
    private readonly products: ProductCatalog,
    private readonly live: LivePaywalls,
    private readonly phaseStore: PhaseStore,
  ) {}

  /** The experiment phases of a paywall, oldest first; 404 for an unknown paywall. */
  async phases(projectId: string, id: string): Promise<PhaseRow[]> {
    if (!(await this.store.get(projectId, id))) throw notFound();
    return this.phaseStore.phases(projectId, id);
  }

  /** The `experiment` settings results are read with: the live revision's, else the newest revision's. */
  async experimentSettings(projectId: string, id: string): Promise<ExperimentSettings | undefined> {
    const row = await this.store.get(projectId, id);
    if (!row) throw notFound();
    const stored = await this.store.revision(projectId, id, row.live_revision ?? row.latest_revision);
    return stored === undefined ? undefined : (JSON.parse(stored.document) as PaywallOutput).experiment;
  }

  async list(projectId: string): Promise<PaywallInfo[]> {
    return (await this.store.list(projectId)).map(paywallInfo);
  }

  async get(projectId: string, id: string): Promise<{ row: PaywallRow; document: unknown }> {
    const row = await this.store.get(projectId, id);
    if (!row) throw notFound();
    const revision = (await this.store.revision(projectId, id, row.latest_revision))!;
    return { row, document: JSON.parse(revision.document) };
  }

  /** Refuses a document text over the size limit before it is parsed. */
  checkSize(bytes: number): void {
    const tooLarge = documentSizeErrors(bytes);
    if (tooLarge.length > 0) throw invalid('the paywall document is invalid; see errors', tooLarge);
  }

  /** Stores `document` as the paywall's newest revision (a draft), creating the paywall if it is new; checked here, errors at pointers into it (config-dir hands over one it checked already). */
  async write(
    projectId: string,
    id: string,
    document: JsonValue | PaywallOutput,
    preconditions: Preconditions,
    change: Change,
  ): Promise<{ row: PaywallRow; warnings: PaywallWarning[]; created: boolean }> {
    if (!v.is(IdSchema, id)) throw new DomainError('invalid_id', `a paywall id is ${ID_RULE}`);
    const result = await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      const tag = current && paywallTag(current);
      requireIfMatch(preconditions.ifMatch, tag);
      requireIfNoneMatch(preconditions.ifNoneMatch, tag);
      const validation = validatePaywall(document, await this.deps(projectId));
      if (!validation.ok) throw invalid('the paywall document is invalid; see errors', validation.errors);
      const write = { name: validation.value.name, document: JSON.stringify(validation.value), products: slotProducts(validation.value) };
      const row = await this.store.addRevision(projectId, id, write, current?.version, change);
      return row === STALE ? STALE : { row, warnings: [...validation.warnings, ...this.keylessWarnings(projectId, id)], created: current === undefined };
    });
    await this.live.refresh(projectId, id);
    return result;
  }

  /** A paywall id another project serves longer: keyless events of it go there (docs/reference/events.md, "Keys and attribution"). */
  private keylessWarnings(projectId: string, id: string): PaywallWarning[] {
    const owner = this.live.projectsWithPaywall(id)[0];
    if (owner === undefined || owner === projectId) return [];
    const message =
      "Another project on this server has served this paywall id longer: keyless events of it go there. Send this project's sdk key with its events";
    return [{ path: '', code: 'keyless_elsewhere', message }];
  }

  /** The phases as GET /api/paywalls/{id}/phases lists them, with the seed each hashes users with. */
  async phaseList(projectId: string, id: string): Promise<ReturnType<typeof phaseInfo>[]> {
    const rows = await this.phases(projectId, id);
    const base = await this.baseSeed(projectId, id);
    return rows.map((row) => phaseInfo(row, base));
  }

  /** The paywall's seed before any phase suffix: the live (else newest) revision's `seed`, else the paywall id. */
  private async baseSeed(projectId: string, id: string): Promise<string> {
    const row = await this.store.get(projectId, id);
    const stored = row && (await this.store.revision(projectId, id, row.live_revision ?? row.latest_revision));
    return (stored && (JSON.parse(stored.document) as PaywallOutput).seed) ?? id;
  }

  /**
   * Makes a revision live (the newest by default; an older one is a rollback),
   * unarchiving the paywall; says which phase is current and whether this
   * publish started it, and the revision's warnings as of now (a countdown
   * that has ended since it was written).
   */
  async publish(
    projectId: string,
    id: string,
    revision: number | undefined,
    ifMatch: string,
    change: Change,
    options: PhaseOptions = { forceNew: false, reseed: true },
  ): Promise<{ row: PaywallRow; phase: PhaseRow; started: boolean; seed: string; warnings: PaywallWarning[] }> {
    const result = await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      if (!current) throw notFound();
      requireIfMatch(ifMatch, paywallTag(current));
      const target = revision ?? current.latest_revision;
      const stored = await this.store.revision(projectId, id, target);
      if (!stored) throw noSuchRevision();
      // Products may have been deleted since the revision was written; a live revision must name existing ones.
      const document: unknown = JSON.parse(stored.document);
      const deps = await this.deps(projectId);
      const validation = validatePaywall(document, deps);
      if (!validation.ok)
        throw revisionInvalid(
          target,
          slotProducts(document).filter((product) => !deps.productExists(product)),
          validation.errors,
        );
      const publication = { revision: target, design: phaseDesign(validation.value), options, products: slotProducts(validation.value), now: Date.now() };
      const published = await this.store.publish(projectId, id, publication, current.version, change);
      if (published === STALE) return STALE;
      return { ...published, seed: phaseSeed(validation.value.seed ?? id, published.phase), warnings: validation.warnings };
    });
    await this.live.refresh(projectId, id);
    return result;
  }

  /** Stops serving the paywall; its revisions are kept and publishing again brings it back. */
  async archive(projectId: string, id: string, ifMatch: string, change: Change): Promise<PaywallRow> {
    const row = await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      if (!current) throw notFound();
      requireIfMatch(ifMatch, paywallTag(current));
      return this.store.archive(projectId, id, current.version, change);
    });
    await this.live.refresh(projectId, id);
    return row;
  }

  async revisions(projectId: string, id: string): Promise<RevisionInfo[]> {
    const paywall = await this.store.get(projectId, id);
    if (!paywall) throw notFound();
    return (await this.store.revisions(projectId, id)).map((row) => revisionInfo(row, paywall));
  }

  /**
   * One revision, with whether publishing it now would start a phase (by the
   * publish's own rule, startsPhase); its tag changes whenever its info does
   * (the live flag and the current phase follow the paywall's version: only a
   * publish changes the phase, and it changes the version).
   */
  async revision(projectId: string, id: string, revision: number): Promise<{ info: RevisionInfo & { starts_phase: boolean }; document: unknown; tag: string }> {
    const paywall = await this.store.get(projectId, id);
    if (!paywall) throw notFound();
    const row = await this.store.revision(projectId, id, revision);
    if (!row) throw noSuchRevision();
    const document: unknown = JSON.parse(row.document);
    const current = (await this.phaseStore.phases(projectId, id)).at(-1);
    const info = { ...revisionInfo(row, paywall), starts_phase: startsPhase(current, storedDesign(document)) };
    return { info, document, tag: entityTag(`${paywall.version}-${revision}`) };
  }

  private async deps(projectId: string): Promise<PaywallDeps> {
    const products = await productsById(this.products, projectId);
    return { productExists: (productId) => products.has(productId), catalog: storeCatalog(products.values()) };
  }
}

/** Every product id a stored document puts in a slot, its variants' included. */
/** A revision that names products deleted since: which ones, and the two ways forward. */
function revisionInvalid(revision: number, missing: string[], errors: DocumentError[]): DomainError {
  const named = missing.length === 0 ? 'it is no longer valid' : `it puts ${missing.join(', ')} in a slot, deleted from the catalog since`;
  return new DomainError(
    'revision_invalid',
    `revision ${revision} cannot be published: ${named}. Create ${missing.length === 1 ? 'that product' : 'those products'} again (PUT /api/products/{id}), or publish a revision without ${missing.length === 1 ? 'it' : 'them'}; see errors`,
    { errors },
  );
}
