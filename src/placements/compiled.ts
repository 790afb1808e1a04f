/**
 * A placement's newest revision compiled for GET /api/sdk/placement: each
 * rule's audience compiled to a closure, its holdout as a number of the
 * 10,000 hash buckets, and the answers' bodies serialised once and served
 * from memory with their ETag (a show answer: once per rule and paywall
 * body, which the compiled paywall itself keeps). Nothing here touches the
 * database.
 */

import { type Attributes, type Condition, compileCondition } from '../paywalls/targeting/condition.ts';
import { assignBucketAfter, seedHash } from '../paywalls/targeting/hash.ts';
import { usesServerAttributes } from '../paywalls/targeting/server-attributes.ts';
import { digestTag } from '../shared/digest.ts';
import { holdoutSeed } from './holdout-seed.ts';
import { type Frequency, NO_DEFAULT, type NoShowReason, type PlacementDocument } from './schema.ts';

export interface CompiledRule {
  readonly index: number;
  readonly paywallId: string;
  /** The audience as written (for explain); undefined: every user. */
  readonly audience: Condition | undefined;
  readonly matches: (attributes: Attributes) => boolean;
  /** Buckets of 10,000 held out: holdout_percent × 100. */
  readonly holdoutBuckets: number;
  readonly frequency: Frequency | null;
}

/** A body served as is, with its ETag; the same headers for every answer but Content-Type's presence. */
export interface ServedAnswer {
  body: Buffer;
  etag: string;
  headers: Readonly<Record<string, string>>;
  notModifiedHeaders: Readonly<Record<string, string>>;
}

/** The paywall answer a show embeds (a compiled paywall's ServedBody): only its body and tag are read. */
interface PaywallBody {
  readonly body: Buffer;
  readonly etag: string;
}

/**
 * Decisions change with the user's history (frequency caps, purchases), so a
 * client revalidates every time: a 304 still spares the body.
 */
function served(body: Buffer, etag: string): ServedAnswer {
  const cache = { ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Accept-Language' };
  return { body, etag, headers: { 'Content-Type': 'application/json', ...cache }, notModifiedHeaders: cache };
}

export class CompiledPlacement {
  readonly id: string;
  readonly revision: number;
  readonly rules: readonly CompiledRule[];
  /** The paywall shown when no rule matches; null: nothing. */
  readonly defaultPaywall: string | null;
  /** Some rule's audience tests purchases.*: a request needs a userId. */
  readonly usesFacts: boolean;
  private readonly seed: number;
  /** Per rule (and the default, last), the show answer built around each paywall body, while that body lives. */
  private readonly shows: WeakMap<PaywallBody, ServedAnswer>[];
  private readonly noShows = new Map<string, ServedAnswer>();

  constructor(id: string, revision: number, document: PlacementDocument) {
    this.id = id;
    this.revision = revision;
    this.rules = document.rules.map((rule, index) => ({
      index,
      paywallId: rule.paywall_id,
      audience: rule.audience,
      matches: rule.audience === undefined ? () => true : compileCondition(rule.audience),
      holdoutBuckets: Math.round((rule.holdout_percent ?? 0) * 100),
      frequency: rule.frequency ?? null,
    }));
    this.defaultPaywall = document.default === undefined || document.default === NO_DEFAULT ? null : document.default;
    this.usesFacts = document.rules.some((rule) => rule.audience !== undefined && usesServerAttributes(rule.audience));
    this.seed = seedHash(holdoutSeed(id));
    this.shows = [...this.rules, null].map(() => new WeakMap());
  }

  /** The first rule whose audience matches, or undefined. */
  decide(attributes: Attributes): CompiledRule | undefined {
    const rules = this.rules;
    for (let i = 0; i < rules.length; i++) if (rules[i]!.matches(attributes)) return rules[i];
    return undefined;
  }

  /** The user's bucket (0 to 9,999) of this placement's holdout split: the same on every call and instance. */
  bucket(userId: string): number {
    return assignBucketAfter(this.seed, userId);
  }

  /** The answer that shows `paywall` for `rule` (undefined: the default paywall). */
  show(rule: CompiledRule | undefined, paywall: PaywallBody): ServedAnswer {
    const cache = this.shows[rule === undefined ? this.rules.length : rule.index]!;
    let answer = cache.get(paywall);
    if (!answer) {
      const head = `{"show":true,"placement":${JSON.stringify(this.id)},"rule":${rule?.index ?? null},"frequency":${JSON.stringify(rule?.frequency ?? null)},"paywall":`;
      const body = Buffer.concat([Buffer.from(head), paywall.body, Buffer.from('}')]);
      // The paywall's own tag says its body; the revision and rule say what surrounds it.
      answer = served(body, `"${paywall.etag.slice(1, -1)}.${this.revision}.${rule?.index ?? 'd'}"`);
      cache.set(paywall, answer);
    }
    return answer;
  }

  /** The answer that shows nothing, and why. */
  noShow(reason: NoShowReason, rule: CompiledRule | undefined, paywallId: string | null): ServedAnswer {
    const key = `${reason}\n${rule?.index ?? ''}\n${paywallId ?? ''}`;
    let answer = this.noShows.get(key);
    if (!answer) {
      const body = Buffer.from(JSON.stringify({ show: false, placement: this.id, reason, rule: rule?.index ?? null, paywall_id: paywallId }));
      answer = served(body, digestTag(body));
      this.noShows.set(key, answer);
    }
    return answer;
  }
}
