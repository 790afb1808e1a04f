// Runs the PostgreSQL event writer from source (../events/writer/from-source.mjs says how).
import { runFromSource } from '../events/writer/from-source.mjs';

await runFromSource(new URL('./postgres-writer-thread.ts', import.meta.url));
