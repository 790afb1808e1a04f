/**
 * The purchase records of `POST /api/purchases` and the store connectors
 * (src/purchases/), and the identity links of `identify` (src/identity/), as
 * experiment results read them, only the records and links stored since the
 * last read (linked-users.ts joins them to the users of the events:
 * docs/revenue.md, "Attribution"). Storage-free: each backend's writer
 * thread brings its PurchaseReader (SQLite's: src/analytics/purchase-feed.ts).
 */

export interface PurchaseRow {
  seq: number;
  user_id: string;
  type: string;
  ts: number;
  revenue: number;
  currency: string;
  paywall_id: string | null;
}

/** The links of one project the feed has read, in the order read (links are only ever added: the first link of an anonymous id stays). */
export interface ProjectLinks {
  /** anonymous id → user id */
  readonly map: Map<string, string>;
  /** [anonymous id, user id] in the order read: a fold applies those after the ones it has. */
  readonly list: [string, string][];
}

/** Where the records and links come from, as the fold reads them: synchronously, from what the writer thread reads. */
export interface PurchaseReader {
  /** The records of a project stored after `seq`, in order of storage. */
  recordsSince(projectId: string, seq: number): PurchaseRow[];
  /** The project's links: the same object on every call, with the links read since appended. */
  links(projectId: string): ProjectLinks;
}
