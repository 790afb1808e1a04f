import type { Logger } from './log.ts';
import { DomainError } from './shared/errors.ts';

/**
 * Seals the secrets an earlier version stored in plaintext (connector
 * configurations, webhook endpoints' signing secrets: shared/secret-box.ts),
 * then has the database truncate its log: on SQLite, with secure_delete
 * (src/storage/server-sqlite.ts), the plaintext is then gone from the file's
 * bytes, not only from its rows.
 */
export async function sealStoredSecrets(sealers: Record<string, () => Promise<number>>, truncateLog: () => void, log: Logger): Promise<void> {
  for (const [what, seal] of Object.entries(sealers)) {
    try {
      const sealed = await seal();
      if (sealed === 0) continue;
      truncateLog();
      log.info(`${what} stored in plaintext were sealed`, { count: sealed });
    } catch (error) {
      // Without the key file, or with the database busy past the lock wait: served as stored, sealed at a later start.
      if (!(error instanceof DomainError) || (error.code !== 'secrets_unavailable' && error.code !== 'database_unavailable')) throw error;
      log.warn(`${what} stored in plaintext stay so`, { reason: error.message });
    }
  }
}
