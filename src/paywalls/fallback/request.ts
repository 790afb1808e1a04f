import * as v from 'valibot';
import { DomainError } from '../../shared/errors.ts';
import { IdSchema } from '../../shared/id.ts';
import { MAX_FALLBACK_PAYWALLS } from './schema.ts';

/** What a fallback request names: paywalls, and placements (whose paywalls come with them). */
interface FallbackRequest {
  paywallIds: string[];
  placementIds: string[];
}

/** Every value of the parameter, each split at commas (ids cannot contain one), without duplicates, checked. */
function ids(query: readonly (readonly [name: string, value: string])[], parameter: string, what: string): string[] {
  const found = new Set<string>();
  for (const [name, value] of query) {
    if (name !== parameter) continue;
    for (const id of value.split(',')) if (id !== '') found.add(id);
  }
  if (found.size > MAX_FALLBACK_PAYWALLS) {
    throw new DomainError('invalid_query', `a bundle holds at most ${MAX_FALLBACK_PAYWALLS} ${what}s`, {
      errors: [{ path: `/${parameter}`, message: `must name at most ${MAX_FALLBACK_PAYWALLS} ${what}s` }],
    });
  }
  for (const id of found) {
    if (!v.is(IdSchema, id)) {
      throw new DomainError('invalid_query', `${parameter} holds something that is not a ${what} id`, {
        errors: [{ path: `/${parameter}`, message: `must be ${what} ids: 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit` }],
      });
    }
  }
  return [...found];
}

/** The paywall and placement ids of a fallback request: every `paywallId` and `placement` parameter; at least one id. */
export function fallbackRequest(query: Iterable<readonly [name: string, value: string]>): FallbackRequest {
  const pairs = [...query];
  const paywallIds = ids(pairs, 'paywallId', 'paywall');
  const placementIds = ids(pairs, 'placement', 'placement');
  if (paywallIds.length === 0 && placementIds.length === 0) {
    throw new DomainError('invalid_query', 'paywallId is required: one or more paywall ids, comma-separated (or placement: placement ids)', {
      errors: [{ path: '/paywallId', message: 'is required' }],
    });
  }
  return { paywallIds, placementIds };
}
