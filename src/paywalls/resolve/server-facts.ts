/**
 * What the server knows of a user beyond what a request says: the
 * purchases.* facts (src/placements/facts/, handed over by src/context.ts),
 * which audiences may test and apps never send. Only a request that names
 * its user can have them.
 */
import { DomainError } from '../../shared/errors.ts';
import type { Attributes } from '../targeting/condition.ts';
import { PURCHASES } from '../targeting/server-attributes.ts';

/** The facts of the user an id counts as (identify links followed), from memory. */
export interface UserFacts {
  factsOf(projectId: string, userId: string): object;
}

/** The request's attributes with the facts of its user under `purchases`; 400 user_required without a userId. */
export function withServerFacts(
  request: { userId: string | undefined; attributes: Attributes },
  projectId: string,
  facts: UserFacts,
  what: string,
): Attributes {
  if (request.userId === undefined) {
    throw new DomainError('user_required', `${what} tests purchases.*, which the server knows only of a user it is told: send userId`);
  }
  return { ...request.attributes, [PURCHASES]: facts.factsOf(projectId, request.userId) };
}
