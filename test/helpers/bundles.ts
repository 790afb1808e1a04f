/** Where suite.ts runs the test files from (bundle.ts builds them), and the way back to their sources. */
import path from 'node:path';

/** Where each run's bundles go, relative to the repository: a directory per run, each file in a numbered directory of its own (its place in the run), the repository's layout below. */
export const BUNDLES_DIR = path.join('node_modules', '.cache', 'paywalld-tests');

/** The repository file a bundled test file (as `process.argv[1]` names it) was built from; any other path unchanged. */
export function sourceOfBundle(file: string): string {
  const parts = path.normalize(file).split(path.sep);
  const at = parts.findIndex((_, i) => parts.slice(i, i + 3).join(path.sep) === BUNDLES_DIR);
  return at === -1
    ? file
    : parts
        .slice(at + 5)
        .join(path.sep)
        .replace(/\.mjs$/, '.ts');
}
