// How a writer thread runs from source (src/storage/sqlite-writer-thread-from-source.mjs and postgres-writer-thread-from-source.mjs): worker
// threads of Node 20 do not inherit the TypeScript loader that `node --import tsx` installed on the main
// thread, and registering it again in each thread cost about 0.35 s of CPU (a loader thread of its own
// that compiles every module anew), once for every server a test starts: 10 servers took 8.5 s of CPU
// that way, 5.1 s this way. Instead esbuild bundles the thread's modules into one file under
// node_modules/.cache/ (each module's import.meta.url kept as its source file's, as under tsx), which
// every later thread imports as long as the sources it was built from are unchanged, byte for byte.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'paywalld-threads');
/** What else a bundle is made of: how (this file), the compiler settings and esbuild's version. */
const BUILT_WITH = [path.relative(ROOT, fileURLToPath(import.meta.url)), 'tsconfig.json', 'package-lock.json'];

/**
 * Each source module's import.meta.url (and dirname, filename) as its own
 * file's, not the bundle's (src/native.ts finds addons from it; tests find
 * their fixtures); test/bundle.ts bundles the test files with it too.
 */
export const sourceMeta = {
  name: 'source-import-meta',
  setup(plugin) {
    plugin.onLoad({ filter: /\.(?:tsx?|mjs)$/ }, async (args) => {
      const file = args.path;
      if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = (await fs.promises.readFile(file, 'utf8'))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
        .replaceAll('import.meta.filename', JSON.stringify(file));
      return { contents: text, loader: file.endsWith('.mjs') ? 'js' : file.endsWith('.tsx') ? 'tsx' : 'ts' };
    });
  },
};

/** A digest of the contents of the files (and of what bundles them), or undefined when one is gone. */
function digest(files) {
  const hash = crypto.createHash('sha256');
  for (const file of [...files, ...BUILT_WITH]) {
    try {
      hash.update(file).update('\0').update(fs.readFileSync(path.join(ROOT, file))).update('\0');
    } catch {
      return undefined;
    }
  }
  return hash.digest('hex');
}

/** Writes `text` to `file` whole or not at all: other test processes read the cache meanwhile. */
function writeWhole(file, text) {
  const partial = `${file}.${process.pid}-${threadId}`;
  fs.writeFileSync(partial, text);
  fs.renameSync(partial, file);
}

/** Removes the bundles of `name` an hour old or more: built from sources since edited, no thread starts from them any more. */
function forgetOld(name) {
  const hourAgo = Date.now() - 3_600_000;
  for (const entry of fs.readdirSync(CACHE)) {
    const file = path.join(CACHE, entry);
    if (entry.startsWith(`${name}-`) && fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs < hourAgo) fs.rmSync(file, { force: true });
  }
}

async function bundle(entry, name) {
  const { build, stop } = await import('esbuild');
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      // Where the bundle goes, so that its source map names the sources relative to it.
      outfile: path.join(CACHE, `${name}.mjs`),
      metafile: true,
      // Stack traces name the source files and lines, as under tsx.
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [sourceMeta],
      absWorkingDir: ROOT,
    });
    const inputs = Object.keys(result.metafile.inputs).sort();
    const file = path.join(CACHE, `${name}-${digest(inputs)}.mjs`);
    fs.mkdirSync(CACHE, { recursive: true });
    forgetOld(name);
    writeWhole(file, result.outputFiles[0].text);
    writeWhole(path.join(CACHE, `${name}.json`), JSON.stringify({ inputs }));
    return file;
  } finally {
    // The esbuild service would keep the thread alive, and the writer ends its thread by letting go of everything.
    await stop();
  }
}

/** Imports `entry` (a file URL of a .ts module) from its bundle, bundled first when a source changed. */
export async function runFromSource(entry) {
  const source = fileURLToPath(entry);
  const name = path.relative(ROOT, source).replace(/[^\w]+/g, '-');
  let file;
  try {
    const { inputs } = JSON.parse(fs.readFileSync(path.join(CACHE, `${name}.json`), 'utf8'));
    const cached = path.join(CACHE, `${name}-${digest(inputs)}.mjs`);
    if (fs.existsSync(cached)) file = cached;
  } catch {
    // No bundle yet.
  }
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(file ?? (await bundle(source, name))).href);
}
