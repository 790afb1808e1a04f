// Runs the PostgreSQL event writer from source: worker threads of Node 20 do not inherit
// the TypeScript loader that `node --import tsx` installed on the main thread.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
