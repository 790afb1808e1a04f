/** The public names an owner sees and clears (GET and DELETE /api/event-names): analytics/name-budget.ts says what they are. */
import * as v from 'valibot';

export const NAME_KINDS = ['event_type', 'paywall', 'variant', 'audience'] as const;

const Kind = v.picklist(NAME_KINDS);
const PaywallId = v.pipe(v.nullable(v.string()), v.description('the paywall of a variant or audience; null for event types and paywall ids'));

export const PublicNamesSchema = v.object({
  window_hours: v.pipe(v.number(), v.description('how long a name counts in the budget after it first came, unless cleared')),
  budgets: v.pipe(
    v.array(v.object({ kind: Kind, paywall_id: PaywallId, counting: v.number(), limit: v.number() })),
    v.description('each budget with names counting in it now: per project, and per paywall for variants and audiences'),
  ),
  names: v.pipe(
    v.array(v.object({ kind: Kind, paywall_id: PaywallId, name: v.string(), first_seen_at: v.string(), counting: v.boolean() })),
    v.description('the newest 5,000 names that events sent without a secret key brought and no paywall declares'),
  ),
  total: v.pipe(v.number(), v.description('how many the project has, listed or not')),
});
export type PublicNamesInfo = v.InferOutput<typeof PublicNamesSchema>;

export const ClearedNamesSchema = v.object({ cleared: v.pipe(v.number(), v.description('names that counted in a budget and no longer do')) });
