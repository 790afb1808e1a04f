import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseTarget } from '../db/target.ts';

declare const PAYWALLD_BUNDLED: boolean | undefined;

const bundled = typeof PAYWALLD_BUNDLED !== 'undefined' && PAYWALLD_BUNDLED;

/** The script of the event writer thread of the target's kind, SQLite's or PostgreSQL's: both speak src/events/writer/protocol.ts. */
export function writerThreadScript(target: DatabaseTarget): string | URL {
  const postgres = target.kind === 'postgres';
  // build.mjs writes each thread as a file of its own next to dist/paywalld.js.
  if (bundled) return path.join(path.dirname(fileURLToPath(import.meta.url)), postgres ? 'events-writer-postgres.js' : 'events-writer.js');
  return new URL(postgres ? './postgres-writer-thread-from-source.mjs' : './sqlite-writer-thread-from-source.mjs', import.meta.url);
}
