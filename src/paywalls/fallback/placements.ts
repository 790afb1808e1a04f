/**
 * What the fallback bundle needs of placements (src/placements/fallback.ts
 * renders them; src/context.ts hands it over): a placement's entry as JSON,
 * its content hash, and the paywalls its rules name, which come into the
 * bundle with it.
 */
export interface FallbackPlacementPart {
  readonly json: string;
  readonly hash: string;
  readonly paywallIds: readonly string[];
}

export interface FallbackPlacements {
  /** The parts of the project's named placements that are served (not archived), in the order named. */
  parts(projectId: string, placementIds: readonly string[]): FallbackPlacementPart[];
}
