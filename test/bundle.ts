/**
 * The test files as suite.ts runs them: bundled by esbuild, each with the
 * source it imports, into a directory of this run under node_modules/.cache/.
 * Under `--import tsx` every module of a test process went through tsx's
 * loader thread: importing a server test's modules took about 1.5 s of CPU
 * and a second of wall time per file, a third of what the suite spent
 * (bench/notes/test-suite.md). A bundle loads in about 0.4 s. Each module
 * keeps its own import.meta (src/events/writer/from-source.mjs, sourceMeta),
 * so fixtures are found beside the sources; the suite's reporter
 * (source-reporter.mjs) names a failure's places by the sources through the
 * bundles' source maps. Run by hand, `node --import tsx --test file.test.ts` still works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { sourceMeta } from '../src/events/writer/from-source.mjs';
import { BUNDLES_DIR } from './helpers/bundles.ts';

/** Removes the directories of runs a day old or more: a run that was killed never removed its own. */
function forgetAbandoned(runs: string): void {
  const dayAgo = Date.now() - 86_400_000;
  for (const entry of fs.readdirSync(runs, { withFileTypes: true })) {
    const dir = path.join(runs, entry.name);
    if (entry.isDirectory() && fs.statSync(dir).mtimeMs < dayAgo) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Bundles `files` (relative to `root`) into a new directory; the bundled
 * files, which node:test runs in the same order, and what removes the
 * directory.
 */
export async function bundleTests(root: string, files: readonly string[]): Promise<{ files: string[]; remove: () => void }> {
  const runs = path.join(root, BUNDLES_DIR);
  fs.mkdirSync(runs, { recursive: true });
  forgetAbandoned(runs);
  const outdir = fs.mkdtempSync(path.join(runs, 'run-'));
  // node:test runs files in the order of their paths: a numbered directory each keeps the order they were given in.
  const out = files.map((file, i) => path.join(String(i).padStart(4, '0'), file.replace(/\.ts$/, '')));
  await build({
    entryPoints: files.map((file, i) => ({ in: file, out: out[i]! })),
    absWorkingDir: root,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Modules two test files share load from one chunk of each process's own.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Packages load from node_modules, as under tsx; the pages' own imports are the browser's.
    packages: 'external',
    external: ['/client/*', '/render/*'],
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    plugins: [sourceMeta],
  });
  return {
    files: out.map((file) => path.join(outdir, `${file}.mjs`)),
    remove: () => fs.rmSync(outdir, { recursive: true, force: true }),
  };
}
