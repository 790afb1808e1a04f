import { budgetLimit, type NameKind, PUBLIC_WINDOW_MS } from '../../analytics/name-budget.ts';
import type { Change } from '../../shared/change.ts';
import type { NAME_KINDS, PublicNamesInfo } from './schema.ts';
import type { EventNameStore } from './store.ts';

/** Names listed at most: more than every budget can hold at once, so every name counting now is among them. */
const LISTED = 5000;

const KIND_NAMES: Record<NameKind, (typeof NAME_KINDS)[number]> = { t: 'event_type', p: 'paywall', v: 'variant', a: 'audience' };

/** What filled the budget of names sent without a secret key (analytics/name-budget.ts), for an owner to see and clear. */
export class EventNameService {
  constructor(private readonly store: EventNameStore) {}

  async list(projectId: string, now = Date.now()): Promise<PublicNamesInfo> {
    const { names, total } = await this.store.list(projectId, LISTED);
    const counting = names.filter((name) => name.counted && name.firstAt > now - PUBLIC_WINDOW_MS);
    const budgets = new Map<string, PublicNamesInfo['budgets'][number]>();
    const count = (kind: NameKind, paywall: string | null) => {
      const key = `${kind}\0${paywall ?? ''}`;
      const budget = budgets.get(key) ?? { kind: KIND_NAMES[kind], paywall_id: paywall, counting: 0, limit: budgetLimit(kind, paywall !== null) };
      budget.counting++;
      budgets.set(key, budget);
    };
    for (const name of counting) {
      count(name.kind, null);
      if (name.scope !== '') count(name.kind, name.scope);
    }
    return {
      window_hours: PUBLIC_WINDOW_MS / 3_600_000,
      budgets: [...budgets.values()],
      names: names.map((name) => ({
        kind: KIND_NAMES[name.kind],
        paywall_id: name.scope === '' ? null : name.scope,
        name: name.name,
        first_seen_at: new Date(name.firstAt).toISOString(),
        counting: name.counted && name.firstAt > now - PUBLIC_WINDOW_MS,
      })),
      total,
    };
  }

  /** Every public name of the project stops counting: the budget is empty again (the names stay in the statistics). */
  async clear(projectId: string, change: Change): Promise<{ cleared: number }> {
    return { cleared: await this.store.clear(projectId, change) };
  }
}
