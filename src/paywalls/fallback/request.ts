import * as v from 'valibot';
import { DomainError } from '../../shared/errors.ts';
import { IdSchema } from '../../shared/id.ts';
import { MAX_FALLBACK_PAYWALLS } from './schema.ts';

/**
 * The paywall ids of a fallback request: every `paywallId` parameter, each
 * split at commas (ids cannot contain one), without duplicates.
 */
export function fallbackPaywallIds(query: Iterable<readonly [name: string, value: string]>): string[] {
  const ids = new Set<string>();
  for (const [name, value] of query) {
    if (name !== 'paywallId') continue;
    for (const id of value.split(',')) if (id !== '') ids.add(id);
  }
  if (ids.size === 0) {
    throw new DomainError('invalid_query', 'paywallId is required: one or more paywall ids, comma-separated', {
      errors: [{ path: '/paywallId', message: 'is required' }],
    });
  }
  if (ids.size > MAX_FALLBACK_PAYWALLS) {
    throw new DomainError('invalid_query', `a bundle holds at most ${MAX_FALLBACK_PAYWALLS} paywalls`, {
      errors: [{ path: '/paywallId', message: `must name at most ${MAX_FALLBACK_PAYWALLS} paywalls` }],
    });
  }
  for (const id of ids) {
    if (!v.is(IdSchema, id)) {
      throw new DomainError('invalid_query', 'paywallId holds something that is not a paywall id', {
        errors: [{ path: '/paywallId', message: 'must be paywall ids: 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit' }],
      });
    }
  }
  return [...ids];
}
