/** How a writer thread reports what failed: the error as text for the log, and whether the database itself failed. */
import { DomainError } from '../../shared/errors.ts';

export function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Why a store call failed when the database did (stores answer database_unavailable); undefined for anything else, a bug. */
export function unavailableReason(error: unknown): string | undefined {
  return error instanceof DomainError && error.code === 'database_unavailable' ? error.message : undefined;
}
