/** The two sides a plan compares: what the directory wants and what the target holds. */
import type { PaywallOutput } from '../paywalls/document/schema.ts';
import type { PlacementDocument } from '../placements/schema.ts';
import type { StoreIds } from '../products/schema.ts';

/** A product as the directory and the target both describe it. */
export interface ProductContent {
  name: string;
  store_ids: StoreIds;
}

export interface DesiredPaywall {
  id: string;
  /** The document as validated: defaults filled in, exactly what the server stores. */
  document: PaywallOutput;
}

/** A directory that validated: ordered by id. */
export interface DesiredState {
  products: (ProductContent & { id: string })[];
  paywalls: DesiredPaywall[];
  /** The paywalls meant to be live (every paywall of the directory unless paywalld.json lists some). */
  live: ReadonlySet<string>;
  /** The placements, as validated; each served as soon as it is written (there is no draft). */
  placements: DesiredPlacement[];
}

export interface DesiredPlacement {
  id: string;
  document: PlacementDocument;
}

interface CurrentPlacement {
  id: string;
  status: 'active' | 'archived';
  tag: string;
  document: PlacementDocument;
}

interface CurrentProduct extends ProductContent {
  id: string;
  /** The ETag: what If-Match names when this product is written or deleted. */
  tag: string;
}

export interface CurrentPaywall {
  id: string;
  status: 'draft' | 'live' | 'archived';
  /** The newest revision, whose document this is. */
  revision: number;
  liveRevision: number | null;
  tag: string;
  document: PaywallOutput;
}

/** What a project holds, ordered by id; archived paywalls included. */
export interface CurrentState {
  products: CurrentProduct[];
  paywalls: CurrentPaywall[];
  placements: CurrentPlacement[];
}
