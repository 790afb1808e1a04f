/**
 * PostgreSQL's migrations: one baseline holding the schema of SQLite's
 * versions 1 to 20 (baseline.ts: squashed before any release), then each
 * later one numbered and named as SQLite's (src/db/migrations/), version n
 * here being the PostgreSQL form of version n there, so that both backends
 * record the same versions. Never edit one that has shipped.
 */

import type { Migration } from '../../migrations/migration.ts';
import { baseline } from './baseline.ts';

export const postgresMigrations: readonly Migration[] = [baseline];
