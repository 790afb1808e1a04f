// Builds the dashboard's browser code (ui/) with esbuild, in memory: one
// script and one stylesheet under content-hashed names, and the index.html
// that loads them. build.mjs embeds the result in the server bundle (see
// files.ts); from the sources, files.ts calls this on first use instead.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const TYPES = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * The node vocabulary as data. It is read from the server's valibot schemas,
 * which the browser's bundle must not carry: the vocabulary module is
 * bundled and run here, and the editor's ui/editor/vocabulary.ts is swapped
 * for its result.
 */
async function vocabularyModule() {
  const bundled = await build({
    entryPoints: [path.join(here, '../paywalls/document/vocabulary.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  const { nodeVocabulary } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
  return `export const VOCABULARY = ${JSON.stringify(nodeVocabulary())};\n`;
}

/** @returns {Promise<import('./build-ui.d.mts').DashboardFile[]>} */
export async function buildUi() {
  const vocabulary = await vocabularyModule();
  let swapped = false;
  const result = await build({
    plugins: [
      {
        name: 'vocabulary-as-data',
        setup(plugin) {
          plugin.onLoad({ filter: /[\\/]ui[\\/]editor[\\/]vocabulary\.ts$/ }, () => ({ contents: (swapped = true) && vocabulary, loader: 'js' }));
        },
      },
    ],
    entryPoints: { app: path.join(here, 'ui/main.tsx') },
    bundle: true,
    write: false,
    outdir: path.join(here, 'out'),
    entryNames: '[name]-[hash]',
    format: 'esm',
    target: ['chrome109', 'firefox115', 'safari16'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
    // The tree is reachable only under /dashboard/assets/, which index.html names.
    publicPath: '/dashboard/assets',
  });
  if (!swapped) throw new Error('build-ui.mjs: ui/editor/vocabulary.ts was not found to swap for the vocabulary as data');
  const assets = result.outputFiles.map((file) => {
    const name = path.basename(file.path);
    const type = TYPES[path.extname(name)];
    if (!type) throw new Error(`the dashboard build made a file of unexpected type: ${name}`);
    return { name: `assets/${name}`, contentType: type, text: file.text };
  });
  const script = assets.find((file) => file.name.endsWith('.js'));
  const style = assets.find((file) => file.name.endsWith('.css'));
  if (!script || !style) throw new Error('the dashboard build made no script or no stylesheet');
  const index = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>paywalld</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/${style.name}">
<script type="module" src="/dashboard/${script.name}"></script>
</head>
<body>
<div id="app"><noscript>The paywalld dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
  return [{ name: 'index.html', contentType: 'text/html; charset=utf-8', text: index }, ...assets];
}
