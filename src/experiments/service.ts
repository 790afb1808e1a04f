/**
 * Experiment results as a service: finds the phase and segment asked for,
 * has the event counts folded (by the event writer, which owns them) and
 * computes the statistics. Speaks no HTTP; unknown phases and audiences are
 * DomainErrors.
 */

import type { FoldQuery, FoldResult } from '../analytics/fold/fold-types.ts';
import type { ExperimentSettings } from '../paywalls/document/experiment.ts';
import { DomainError } from '../shared/errors.ts';
import type { Analysis } from './effects.ts';
import type { PhaseDesign, PhaseRow } from './phases.ts';
import { buildResults, readSettings, segmentDesign } from './results.ts';
import type { Results } from './schema.ts';

/** Where the counts come from: the event writer's derived state. */
interface ExperimentCounts {
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery): Promise<FoldResult>;
}

/** Where the phases and settings come from: the paywalls feature (paywall_not_found for an unknown paywall). */
interface PhaseSource {
  phases(projectId: string, paywallId: string): Promise<PhaseRow[]>;
  /** The `experiment` object of the live revision (else the newest). */
  experimentSettings(projectId: string, paywallId: string): Promise<ExperimentSettings | undefined>;
}

export class ExperimentResults {
  constructor(
    private readonly counts: ExperimentCounts,
    private readonly phases: PhaseSource,
    /** Told of results computed with the paywall's own settings (no analysis override): webhooks compare their decision. */
    private readonly observe?: (projectId: string, paywallId: string, results: Results) => void,
  ) {}

  /** The results of phase `number` (default: the current one) and `audience` (null: the default split); `analysis` overrides the paywall's. */
  async results(projectId: string, paywallId: string, number: number | undefined, audience: string | null, analysis?: Analysis): Promise<Results> {
    const list = await this.phases.phases(projectId, paywallId);
    const settings = await this.phases.experimentSettings(projectId, paywallId);
    const read = readSettings(settings, analysis);
    const row = number === undefined ? list.at(-1) : list.find((candidate) => candidate.number === number);
    if (!row) {
      throw new DomainError(
        'phase_not_found',
        list.length === 0 ? 'the paywall has no phase yet: publish it first' : 'the paywall has no phase with this number',
      );
    }
    const segment = segmentDesign(JSON.parse(row.design) as PhaseDesign, audience);
    if (!segment) throw new DomainError('audience_not_found', 'this phase has no audience with this id');
    const fold = await this.counts.results(projectId, paywallId, audience, {
      from: row.started_at,
      to: row.ended_at,
      variants: segment.variants,
      conversionWindowMs: read.conversionWindowHours === null ? null : read.conversionWindowHours * 3_600_000,
      winsorizePercentile: settings?.revenue_winsorize_percentile ?? null,
    });
    const phase = {
      number: row.number,
      started_at: new Date(row.started_at).toISOString(),
      ended_at: row.ended_at === null ? null : new Date(row.ended_at).toISOString(),
      revision: row.revision,
      weights: segment.weights,
    };
    const results = buildResults(paywallId, audience, phase, segment, fold, read);
    if (analysis === undefined) this.observe?.(projectId, paywallId, results);
    return results;
  }
}
