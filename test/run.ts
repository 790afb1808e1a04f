/** `npm test` (after the build): see suite.ts. */
import { main } from './suite.ts';

process.exitCode = await main(process.argv.slice(2));
