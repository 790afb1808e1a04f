/** The brute-force side of the results tests (test/experiments/): who was exposed, computed over the raw records. */

export interface Exposure {
  user: string;
  ts: number;
  variant: string;
}

/**
 * Each user exposed at or after `from`, as one user across identify links,
 * with the one variant they saw and their first exposure: users who saw
 * more than one variant count for none (docs/reference/experiments.md).
 */
export function exposedUsers(
  exposures: readonly Exposure[],
  links: ReadonlyMap<string, string>,
  from: number,
): Map<string, { variant: string; first: number }> {
  const one = (id: string) => links.get(id) ?? id;
  const seen = new Map<string, { variants: Set<string>; first: number }>();
  for (const e of exposures) {
    if (e.ts < from) continue;
    const user = seen.get(one(e.user)) ?? { variants: new Set(), first: Number.POSITIVE_INFINITY };
    user.variants.add(e.variant);
    user.first = Math.min(user.first, e.ts);
    seen.set(one(e.user), user);
  }
  const users = new Map<string, { variant: string; first: number }>();
  for (const [id, user] of seen) if (user.variants.size === 1) users.set(id, { variant: [...user.variants][0]!, first: user.first });
  return users;
}
