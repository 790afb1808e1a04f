/**
 * The seed a placement's holdout hashes users with (GrowthBook's hash of
 * seed + userId into 10,000 buckets): apart from any paywall's, since a
 * paywall may share the placement's id. A pure module: the typed client
 * decides the holdout the same way offline.
 */
export function holdoutSeed(placementId: string): string {
  return `placement:${placementId}`;
}
