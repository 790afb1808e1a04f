/**
 * GET /api/sdk/config?…&explain=1 with a secret key: the answer the app gets,
 * plus why. It answers "wrong audience" questions in one call: the attributes
 * the request carried, each audience tried with each clause's result, the hash
 * input and bucket, the weights used, the variant and the locale chain walked.
 * Off the hot path: it reads the live revision's document from the database
 * and serialises afresh; the normal resolve never comes here.
 */
import { DomainError } from '../../shared/errors.ts';
import { pointer } from '../../shared/pointer.ts';
import type { PaywallOutput } from '../document/schema.ts';
import type { LivePaywalls } from '../live.ts';
import type { PaywallStore } from '../store.ts';
import { type Attributes, evalCondition, lookupPath } from '../targeting/condition.ts';
import { assignBucket, pickByWeights } from '../targeting/hash.ts';
import { localeChain } from '../targeting/locale.ts';
import type { CompiledPaywall } from './compiled.ts';
import type { Explain } from './explain-schema.ts';
import type { ResolveRequest } from './request.ts';
import { LocaleStrings } from './strings.ts';

const BUCKETS = 10_000;
const LOGICAL = new Set(['$and', '$or', '$nor', '$not']);

function audienceTrials(document: PaywallOutput, attributes: Attributes): { trials: Explain['audiences']; matched: number } {
  let matched = -1;
  const trials = document.audiences.map((audience, index): Explain['audiences'][number] => {
    if (matched >= 0) return { id: audience.id, tried: false, matched: false, conditions: [] };
    const conditions = Object.entries(audience.when).map(([key, operand]) => ({
      path: pointer(['audiences', index, 'when', key]),
      clause: { [key]: operand },
      attribute: LOGICAL.has(key) ? null : key,
      value: LOGICAL.has(key) ? null : (lookupPath(attributes, key.split('.')) ?? null),
      result: evalCondition(attributes, { [key]: operand }),
    }));
    const all = conditions.every((condition) => condition.result);
    if (all) matched = index;
    return { id: audience.id, tried: true, matched: all, conditions };
  });
  return { trials, matched };
}

/** Each variant's share of the 10,000 buckets under `weights`, as pickByWeights hands them out. */
function bucketRanges(document: PaywallOutput, weights: readonly number[]): Explain['split']['ranges'] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let cumulative = 0;
  // The first bucket b with b * total >= cumulative * BUCKETS.
  const start = (cum: number) => (total === 0 ? 0 : Math.ceil((cum * BUCKETS) / total));
  return document.variants.map((variant, i) => {
    const from = start(cumulative);
    cumulative += weights[i]!;
    return { variant: variant.id, weight: weights[i]!, buckets: [from, start(cumulative)] as [number, number] };
  });
}

function localeExplain(
  document: PaywallOutput,
  variantIndex: number,
  request: ResolveRequest,
  source: Explain['locale']['source'],
  chosen: string,
): Explain['locale'] {
  const strings = new LocaleStrings(document.default_locale, document.strings, document.variants[variantIndex]!.strings);
  const available = strings.locales();
  const walked: Explain['locale']['walked'] = [];
  let found = false;
  for (const requested of request.locales) {
    for (const tag of localeChain(requested)) {
      const has = available.has(tag);
      walked.push({ tag, available: has });
      if (has) {
        found = true;
        break;
      }
    }
    if (found) break;
  }
  const reason = found
    ? `${chosen} is the first tag along the requested locales' fallback chains that has strings`
    : request.locales.length === 0
      ? `no locale was requested: the default locale ${chosen}`
      : `no tag along the requested locales' chains has strings: the default locale ${chosen}`;
  return { requested: [...request.locales], source, available: [...available].sort(), walked, chosen, reason };
}

function explain(
  document: PaywallOutput,
  compiled: CompiledPaywall,
  request: ResolveRequest,
  localeSource: Explain['locale']['source'],
  chosenLocale: string,
): Explain {
  // The current phase's seed: a phase started by a split change randomizes its users afresh.
  const seed = compiled.seedText;
  const { trials, matched } = audienceTrials(document, request.attributes);
  const audience = matched >= 0 ? document.audiences[matched]! : undefined;
  // hasOwn: a variant named `constructor` that the audience leaves out weighs 0, not Object.
  const weightIn = (weights: Readonly<Record<string, number>>, id: string) => (Object.hasOwn(weights, id) ? weights[id]! : 0);
  const weights = document.variants.map((variant) => (audience ? weightIn(audience.weights, variant.id) : variant.weight));
  const from = audience ? `audience ${audience.id}` : 'variants';
  const ranges = bucketRanges(document, weights);
  const bucket = request.userId === undefined ? undefined : assignBucket(seed, request.userId);
  const first = Math.max(
    0,
    weights.findIndex((weight) => weight > 0),
  );
  const picked = bucket === undefined ? first : pickByWeights(bucket, weights);
  const chosen = picked < 0 ? first : picked;
  const variant = document.variants[chosen]!;
  const range = ranges[chosen]!.buckets;
  const reason =
    bucket === undefined
      ? `no userId: the first variant with weight above 0 in the ${from === 'variants' ? "paywall's weights" : `weights of ${from}`}`
      : `bucket ${bucket} falls in ${variant.id}'s buckets [${range[0]}, ${range[1]}) of the ${from === 'variants' ? "paywall's weights" : `weights of ${from}`}`;
  return {
    revision: compiled.revision,
    attributes: { ...request.attributes },
    hash:
      bucket === undefined || request.userId === undefined
        ? null
        : { seed, user_id: request.userId, input: seed + request.userId, bucket, value: bucket / BUCKETS },
    audiences: trials,
    split: { from, ranges },
    variant: { id: variant.id, holdout: variant.holdout === true, reason: variant.holdout ? `${reason}; a holdout shows no paywall` : reason },
    locale: localeExplain(document, chosen, request, localeSource, chosenLocale),
  };
}

/**
 * The explained answer: what the SDK endpoint answers for this request, plus
 * `explain`. Routes let only secret keys here, since it shows the whole
 * targeting setup and sdk keys ship inside apps.
 */
export class ResolveExplainer {
  constructor(
    private readonly live: LivePaywalls,
    private readonly store: PaywallStore,
  ) {}

  async answer(projectId: string, request: ResolveRequest): Promise<Record<string, unknown>> {
    const paywall = this.live.get(projectId, request.paywallId);
    const revision = paywall && (await this.store.revision(projectId, request.paywallId, paywall.revision));
    if (!paywall || !revision) throw new DomainError('paywall_not_found', 'no live paywall with this id in the project');
    const choice = paywall.choose(request.userId, request.attributes);
    const served = paywall.serve(choice, request.locales, request.platform);
    const body = JSON.parse(served.body.toString('utf8')) as { locale: string };
    const localeSource: Explain['locale']['source'] = request.localeParameter ? 'locale' : request.locales.length > 0 ? 'accept-language' : 'none';
    const document = JSON.parse(revision.document) as PaywallOutput;
    return { ...body, explain: explain(document, paywall, request, localeSource, body.locale) };
  }
}
