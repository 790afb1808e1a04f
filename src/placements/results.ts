/**
 * A placement's results (docs/guide/placements.md, "Results"): its users shown
 * the paywall against those held out, the holdout being the control, with
 * every figure and the decision readout experiments have
 * (src/experiments/results.ts, docs/reference/experiments.md). A user is exposed by a
 * screen_impression naming the placement (shown) or a placement_holdout
 * event (held out, which the typed client sends when the placement answers
 * holdout), and converts with a purchase anywhere at or after it: the held
 * out saw no paywall to buy through, so whatever they buy is what the
 * placement's absence earns.
 */
import * as v from 'valibot';
import type { FoldQuery, FoldResult } from '../analytics/fold/fold-types.ts';
import { HELD_OUT, PLACEMENT_SEGMENT, SHOWN } from '../analytics/fold/segments.ts';
import type { Analysis } from '../experiments/effects.ts';
import { buildResults, readSettings } from '../experiments/results.ts';
import { ResultsSchema } from '../experiments/schema.ts';
import type { PlacementManager } from './management.ts';
import { NO_DEFAULT, type PlacementDocument } from './schema.ts';

const BUCKETS = 10_000;

const { paywall_id: _paywall, audience: _audience, phase: _phase, ...figures } = ResultsSchema.entries;

export const PlacementResultsSchema = v.object({
  placement_id: v.string(),
  revision: v.pipe(v.number(), v.description("The placement's newest revision, whose rules give the split checked")),
  from: v.pipe(v.string(), v.isoTimestamp(), v.description('The placement was created: exposures and purchases count from then')),
  holdout_percent: v.pipe(
    v.nullable(v.number()),
    v.description(
      "The share held out that the sample-ratio check expects: the rules' holdout_percent when they (and the default paywall, 0) agree; else null, and no check",
    ),
  ),
  ...figures,
});
type PlacementResultsAnswer = v.InferOutput<typeof PlacementResultsSchema>;

/** Where the counts come from: the event writer's derived state (a placement's segment is keyed as PLACEMENT_SEGMENT + its id). */
interface ExperimentCounts {
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery): Promise<FoldResult>;
}

/** The holdout every user the placement shows a paywall to is split by, in buckets; null when its rules differ. */
function holdoutBuckets(document: PlacementDocument): number | null {
  const shares = new Set(document.rules.map((rule) => Math.round((rule.holdout_percent ?? 0) * 100)));
  if (document.default !== undefined && document.default !== NO_DEFAULT) shares.add(0);
  return shares.size === 1 ? [...shares][0]! : shares.size === 0 ? 0 : null;
}

export class PlacementResults {
  constructor(
    private readonly counts: ExperimentCounts,
    private readonly placements: PlacementManager,
  ) {}

  async results(projectId: string, placementId: string, analysis: Analysis | undefined): Promise<PlacementResultsAnswer> {
    const { row, document } = await this.placements.get(projectId, placementId);
    const variants = [HELD_OUT, SHOWN];
    const fold = await this.counts.results(projectId, PLACEMENT_SEGMENT + placementId, null, {
      from: row.created_at,
      to: null,
      variants,
      conversionWindowMs: null,
      winsorizePercentile: null,
    });
    const held = holdoutBuckets(document);
    // Weights in buckets, as the split hands them out; none when the rules differ: the sample-ratio check then has nothing to expect.
    const weights: Record<string, number> = held === null ? { [HELD_OUT]: 0, [SHOWN]: 0 } : { [HELD_OUT]: held, [SHOWN]: BUCKETS - held };
    const from = new Date(row.created_at).toISOString();
    const phase = { number: 1, started_at: from, ended_at: null, revision: row.latest_revision, weights };
    const segment = { variants, weights, control: HELD_OUT, holdouts: [] };
    const {
      paywall_id: _id,
      audience: _none,
      phase: _one,
      ...results
    } = buildResults(placementId, null, phase, segment, fold, readSettings(undefined, analysis));
    return { placement_id: placementId, revision: row.latest_revision, from, holdout_percent: held === null ? null : held / 100, ...results };
  }
}
