/**
 * The settings of what protects the server's keyless surfaces and its
 * secrets (the review of Hardening III): the rate limits of the store
 * notification endpoints and the key connector secrets are sealed with.
 * Part of SETTINGS (config.ts), which spreads them in this order.
 */
import type { Setting } from './config.ts';

export const PROTECTION_SETTINGS = {
  'rate-limit-hooks': {
    env: 'PAYWALLD_RATE_LIMIT_HOOKS',
    kind: 'number',
    arg: 'N',
    default: '20',
    min: 0,
    max: 1e9,
    help: 'requests/s per client IP on the store notification endpoints (`/hooks/*`), bursts of twice that; `0` = off',
  },
  'rate-limit-hooks-project': {
    env: 'PAYWALLD_RATE_LIMIT_HOOKS_PROJECT',
    kind: 'number',
    arg: 'N',
    default: '100',
    min: 0,
    max: 1e9,
    help: 'requests/s per project and provider on `/hooks/*`, from all addresses together, bursts of twice that; `0` = off',
  },
  'secrets-key-file': {
    env: 'PAYWALLD_SECRETS_KEY_FILE',
    kind: 'string',
    arg: 'FILE',
    none: 'beside a SQLite file',
    help: 'the key connector secrets are sealed with at rest (AES-256-GCM), created 0600 on first need; by default `<db>-secrets.key`; PostgreSQL needs it, the same key on every instance (docs/guide/revenue.md, "Secrets at rest")',
  },
} as const satisfies Record<string, Setting>;

export interface ProtectionConfig {
  /** Requests per second per client IP on the store notification endpoints (/hooks/*; burst: twice that); 0 turns the limit off. */
  rateLimitHooks: number;
  /** Requests per second per project and provider on /hooks/* (burst: twice that); 0 turns the limit off. */
  rateLimitHooksProject: number;
  /** The key connector secrets are sealed with (shared/secret-box.ts); undefined: beside a SQLite file, none on PostgreSQL. */
  secretsKeyFile: string | undefined;
}
