import { digestTag } from '../../shared/digest.ts';
import type { CompiledPaywall } from '../resolve/compiled.ts';
import { fallbackEntry } from './bundle.ts';
import type { FallbackPlacementPart } from './placements.ts';
import { FALLBACK_FORMAT } from './schema.ts';

/** A paywall's entry of the bundle, serialised, with its content hash. */
interface RenderedEntry {
  readonly json: string;
  readonly hash: string;
}

/**
 * A bundle's tag and the compiled paywalls it was made of, held weakly: a
 * kept tag must not keep a replaced revision (and its resolve bodies) alive.
 */
interface KeptTag {
  readonly members: readonly WeakRef<CompiledPaywall>[];
  readonly etag: string;
}

/** Distinct bundles (a project and the live paywalls named, in order) whose tag is kept; the least recently asked goes first. */
const MAX_CACHED_BUNDLES = 512;

/**
 * The fallback bundles served by GET /api/sdk/fallback. An app asks for the
 * same bundle on every start with If-None-Match, so a bundle's tag is made
 * once and kept until one of its paywalls is recompiled: a compiled paywall
 * is immutable and replaced whenever its live revision or its products
 * change (by this process or, through the configuration generation, by
 * another), so the identity of its members is the bundle's generation, and
 * a 304 costs the lookups of the named paywalls and of the tag. Each
 * paywall's entry is rendered once per compiled revision, and the tag is a
 * digest of the entries' content hashes rather than of the body, so a
 * bundle whose tag was let go (more distinct requests than
 * MAX_CACHED_BUNDLES) still costs no rendering and no hashing of a body.
 */
export class FallbackBundles {
  private readonly tags = new Map<string, KeptTag>();
  private readonly entries = new WeakMap<CompiledPaywall, RenderedEntry>();
  /** Paywall entries rendered since start (a /metrics counter: a request whose paywalls did not change renders none). */
  rendered = 0;

  /**
   * The ETag of the bundle of these live paywalls of a project, in the order
   * given, and of these placements (undefined: the bundle has none); a
   * placement's part is named by its content hash, so a changed placement
   * is another bundle.
   */
  tag(projectId: string, live: readonly CompiledPaywall[], placements?: readonly FallbackPlacementPart[]): string {
    let key = projectId;
    for (const compiled of live) key += `\n${compiled.paywallId}`;
    if (placements) key += `\n#${placements.map((part) => part.hash).join(',')}`;
    const kept = this.tags.get(key);
    // Map order is insertion order: deleting and setting again keeps the least recently asked first.
    if (kept) this.tags.delete(key);
    if (kept && sameMembers(kept.members, live)) {
      this.tags.set(key, kept);
      return kept.etag;
    }
    const hashes = live.map((compiled) => this.entry(compiled).hash);
    const etag = digestTag(`${FALLBACK_FORMAT}:${hashes.join(',')}${placements ? `#${placements.map((part) => part.hash).join(',')}` : ''}`);
    this.tags.set(key, { members: live.map((compiled) => new WeakRef(compiled)), etag });
    if (this.tags.size > MAX_CACHED_BUNDLES) this.tags.delete(this.tags.keys().next().value!);
    return etag;
  }

  /** The JSON body of the bundle, joined from entries rendered once each: only a 200 needs it. */
  body(live: readonly CompiledPaywall[], placements?: readonly FallbackPlacementPart[]): Buffer {
    const parts = placements ? `,"placements":[${placements.map((part) => part.json).join(',')}]` : '';
    return Buffer.from(`{"format":${FALLBACK_FORMAT},"paywalls":[${live.map((compiled) => this.entry(compiled).json).join(',')}]${parts}}`);
  }

  /** How many bundle tags are kept (a /metrics gauge). */
  size(): number {
    return this.tags.size;
  }

  private entry(compiled: CompiledPaywall): RenderedEntry {
    let rendered = this.entries.get(compiled);
    if (!rendered) {
      const entry = fallbackEntry(compiled);
      rendered = { json: JSON.stringify(entry), hash: entry.hash };
      this.entries.set(compiled, rendered);
      this.rendered++;
    }
    return rendered;
  }
}

function sameMembers(kept: readonly WeakRef<CompiledPaywall>[], live: readonly CompiledPaywall[]): boolean {
  if (kept.length !== live.length) return false;
  for (let i = 0; i < kept.length; i++) if (kept[i]!.deref() !== live[i]) return false;
  return true;
}
