import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseTarget } from '../db/target.ts';
import type { WriterScript } from '../events/writer/protocol.ts';

declare const PAYWALLD_BUNDLED: boolean | undefined;

const bundled = typeof PAYWALLD_BUNDLED !== 'undefined' && PAYWALLD_BUNDLED;

/** Whether this process runs under the TypeScript loader: `--import tsx` (or `--import=tsx`). */
function underTypeScriptLoader(execArgv: readonly string[]): boolean {
  return execArgv.some((arg, i) => arg === '--import=tsx' || (arg === '--import' && execArgv[i + 1] === 'tsx'));
}

/** The script of the event writer thread of the target's kind, SQLite's or PostgreSQL's: both speak src/events/writer/protocol.ts. */
export function writerThreadScript(target: DatabaseTarget): WriterScript {
  const postgres = target.kind === 'postgres';
  // build.mjs writes each thread as a file of its own next to dist/paywalld.js.
  if (bundled) return { file: path.join(path.dirname(fileURLToPath(import.meta.url)), postgres ? 'events-writer-postgres.js' : 'events-writer.js') };
  return {
    file: new URL(postgres ? './postgres-writer-thread-from-source.mjs' : './sqlite-writer-thread-from-source.mjs', import.meta.url),
    // From source, the thread imports a bundle of its modules (src/events/writer/from-source.mjs) and needs no loader: inherited,
    // `--import tsx` would register it again in every thread, about 0.1 s of CPU per server start. None of the process's other
    // options concerns the thread, and a list that repeats them is refused where they include per-process ones (Node 24's test
    // runner gives its files dozens): without the loader the thread inherits them, with it it starts with none.
    execArgv: underTypeScriptLoader(process.execArgv) ? [] : undefined,
  };
}
