// Runs the event writer from source (from-source.mjs says how).
import { runFromSource } from './from-source.mjs';

await runFromSource(new URL('./thread.ts', import.meta.url));
