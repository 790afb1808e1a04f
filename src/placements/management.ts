/**
 * What the management API does to placements: every write reads the
 * placement, checks its preconditions, validates (validate.ts) and hands
 * the store the version it read, which stores it in one transaction only if
 * nothing moved since (shared/stale.ts; else all of it runs again). The
 * in-memory live placements serve the change before it is answered.
 */
import * as v from 'valibot';
import type { Actor, Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import { IdSchema } from '../shared/id.ts';
import { ID_RULE } from '../shared/id-pattern.ts';
import { entityTag, type Preconditions, requireIfMatch, requireIfNoneMatch } from '../shared/preconditions.ts';
import { STALE, untilCurrent } from '../shared/stale.ts';
import type { LivePlacements } from './live.ts';
import type { PlacementDocument, PlacementInfo, PlacementRevisionInfo, PlacementWarning } from './schema.ts';
import type { PlacementRow, PlacementStore } from './store.ts';
import { validatePlacement } from './validate.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export function placementInfo(row: PlacementRow): PlacementInfo {
  return {
    id: row.id,
    name: row.name,
    status: row.archived_at === null ? 'active' : 'archived',
    revision: row.latest_revision,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A placement's ETag: its version, which grows with every change, so a stale tag never matches again. */
export function placementTag(row: PlacementRow): string {
  return entityTag(row.version);
}

function notFound(): DomainError {
  return new DomainError('placement_not_found', 'no placement with this id in the project');
}

/** Whether a paywall is live, as the warnings of a write say it: what the resolve path serves now. */
interface PaywallsServed {
  isLive(projectId: string, paywallId: string): boolean;
}

export class PlacementManager {
  constructor(
    private readonly store: PlacementStore,
    private readonly live: LivePlacements,
    private readonly paywalls: PaywallsServed,
  ) {}

  async list(projectId: string): Promise<PlacementInfo[]> {
    return (await this.store.list(projectId)).map(placementInfo);
  }

  async get(projectId: string, id: string): Promise<{ row: PlacementRow; document: PlacementDocument }> {
    const row = await this.store.get(projectId, id);
    if (!row) throw notFound();
    const revision = (await this.store.revision(projectId, id, row.latest_revision))!;
    return { row, document: JSON.parse(revision.document) as PlacementDocument };
  }

  /** Stores `document` as the placement's newest revision, served at once; creates the placement if it is new, unarchives it if archived. */
  async write(
    projectId: string,
    id: string,
    document: unknown,
    preconditions: Preconditions,
    change: Change,
  ): Promise<{ row: PlacementRow; warnings: PlacementWarning[]; created: boolean }> {
    if (!v.is(IdSchema, id)) throw new DomainError('invalid_id', `a placement id is ${ID_RULE}`);
    const validation = validatePlacement(document, { paywallLive: (paywallId) => this.paywalls.isLive(projectId, paywallId) });
    if (!validation.ok) throw new DomainError('validation_failed', 'the placement is invalid; see errors', { errors: validation.errors });
    const write = { name: validation.value.name, document: JSON.stringify(validation.value) };
    const result = await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      const tag = current && placementTag(current);
      requireIfMatch(preconditions.ifMatch, tag);
      requireIfNoneMatch(preconditions.ifNoneMatch, tag);
      const row = await this.store.write(projectId, id, write, current?.version, change);
      return row === STALE ? STALE : { row, warnings: validation.warnings, created: current === undefined };
    });
    await this.live.refresh(projectId, id);
    return result;
  }

  /** Stops serving the placement; its revisions are kept and a write brings it back. */
  async archive(projectId: string, id: string, ifMatch: string, change: Change): Promise<PlacementRow> {
    const row = await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      if (!current) throw notFound();
      requireIfMatch(ifMatch, placementTag(current));
      return this.store.archive(projectId, id, current.version, change);
    });
    await this.live.refresh(projectId, id);
    return row;
  }

  async revisions(projectId: string, id: string): Promise<PlacementRevisionInfo[]> {
    if (!(await this.store.get(projectId, id))) throw notFound();
    return (await this.store.revisions(projectId, id)).map((row) => ({
      revision: row.revision,
      name: row.name,
      created_at: iso(row.created_at),
      created_by: JSON.parse(row.created_by) as Actor,
    }));
  }

  async revision(projectId: string, id: string, revision: number): Promise<PlacementRevisionInfo & { document: PlacementDocument }> {
    if (!(await this.store.get(projectId, id))) throw notFound();
    const row = await this.store.revision(projectId, id, revision);
    if (!row) throw new DomainError('revision_not_found', 'the placement has no revision with this number');
    return {
      revision: row.revision,
      name: row.name,
      created_at: iso(row.created_at),
      created_by: JSON.parse(row.created_by) as Actor,
      document: JSON.parse(row.document) as PlacementDocument,
    };
  }
}
