/**
 * The purchase records of `POST /api/purchases` and the store connectors
 * (src/purchases/), and the identity links of `identify` (src/identity/), as
 * experiment results read them, only the records and links stored since the
 * last read (linked-users.ts joins them to the users of the events:
 * docs/guide/revenue.md, "Attribution"). Storage-free: the writer thread reads
 * them through their owners' feeds (src/purchases/record-feed.ts,
 * src/identity/link-feed.ts), the same way on every backend, before it asks.
 */

export interface PurchaseRow {
  seq: number;
  userId: string;
  type: string;
  ts: number;
  revenue: number;
  currency: string;
  paywallId: string | null;
}

/** The links of one project read so far, in order of storage (links are only ever added: the first link of an anonymous id stays). */
export interface ProjectLinks {
  /** [anonymous id, user id] in order of storage: a fold applies those after the ones it has. */
  readonly list: readonly (readonly [string, string])[];
}

/** Where the records and links come from, as the fold reads them: synchronously, from what the writer thread read. */
export interface PurchaseReader {
  /** The records of a project stored after `seq`, in order of storage. */
  recordsSince(projectId: string, seq: number): readonly PurchaseRow[];
  /** The project's links: the same object on every call, with the links read since appended. */
  links(projectId: string): ProjectLinks;
}
