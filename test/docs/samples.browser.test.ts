/**
 * Every sample of README.md and of the pages under docs/ runs as written, in page order,
 * against one real server (the built bundle, on a free port, in a temporary
 * directory), so that a sample cannot drift from what paywalld does. The
 * convention for blocks that must not run and for expected output is in
 * CONTRIBUTING.md ("Samples in the docs") and test/docs/blocks.ts.
 */

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { DIST, spawnServe } from '../helpers/cli.ts';
import { CURL, needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';
import { type Block, blocksOf, browserSteps, matchesOutput, type Placeholders, substitute } from './blocks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const TSC = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const TSX = import.meta.resolve('tsx');
const MARK = '@@docs-block';
/** Printed where a browser block stands; the script then waits for a line on $DOCS_BROWSER (a FIFO) before going on. */
const BROWSER_MARK = '@@docs-browser';

/** Every page of docs/, in its folders. */
const docsPages = (dir = 'docs'): string[] =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? docsPages(`${dir}/${entry.name}`) : entry.name.endsWith('.md') ? [`${dir}/${entry.name}`] : []));

/**
 * README first (the pages build on its tour), then the pages in the order the
 * README first links to them (its reading order: a page may build on those
 * before it), then any page it does not link to, by path.
 */
function pagesInOrder(): string[] {
  const linked = [...fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/\]\((docs\/[^)#\s]+\.md)/g)].map((match) => match[1]!);
  const pages = docsPages();
  return ['README.md', ...new Set([...linked.filter((page) => pages.includes(page)), ...pages.sort()])];
}
const PAGES = pagesInOrder();

/** A strict app's tsconfig, as a reader's project would have, with JSON imports. */
function writeTsconfig(work: string, file: string): string {
  const config = path.join(work, `${file}.tsconfig.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        resolveJsonModule: true,
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      },
      files: [file],
    }),
  );
  return config;
}

/** One bash script for a page: its sh blocks in order, its ts blocks joined into one module run where the last one stands. */
function pageScript(page: string, blocks: Block[], values: Placeholders, work: string): string {
  const slug = page.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
  const tsBlocks = blocks.filter((block) => block.kind === 'ts');
  const lines = [
    'set -euo pipefail',
    `export PAYWALLD=${values.url} SDK=${values.sdk} SECRET=${values.secret}`,
    // An HTTP error fails the sample, its body still shown.
    'curl() { command curl --fail-with-body "$@"; }',
    // What `npx paywalld` runs in a checkout (the package's bin), without npm's start-up on every call.
    `npx() { if [ "$1" = paywalld ]; then shift; node ${JSON.stringify(path.join(work, 'dist/paywalld.js'))} "$@"; else command npx "$@"; fi; }`,
  ];
  blocks.forEach((block, index) => {
    if (block.kind === 'sh') lines.push(`printf '\\n${MARK} ${index}\\n'; printf '\\n${MARK} ${index}\\n' >&2`, substitute(block.text, values));
    if (block.kind === 'browser') lines.push(`printf '\\n${BROWSER_MARK} ${index}\\n'`, 'read -r _ < "$DOCS_BROWSER"');
    if (block === tsBlocks.at(-1)) {
      const file = `sample-${slug}.ts`;
      fs.writeFileSync(path.join(work, file), tsBlocks.map((ts) => substitute(ts.text, values)).join('\n'));
      const config = writeTsconfig(work, file);
      lines.push(
        `printf '\\n${MARK} ${index}\\n'; printf '\\n${MARK} ${index}\\n' >&2`,
        `node ${JSON.stringify(TSC)} -p ${JSON.stringify(config)}`,
        `node --import ${JSON.stringify(TSX)} ${file}`,
      );
    }
  });
  lines.push(`printf '\\n${MARK} end\\n'`);
  return `${lines.join('\n')}\n`;
}

/** Each block's stdout, by block index. */
function outputs(stdout: string): Map<number, string> {
  const byBlock = new Map<number, string>();
  const parts = stdout.replace(new RegExp(`\\n${BROWSER_MARK} \\d+\\n`, 'g'), '\n').split(new RegExp(`\\n${MARK} (\\d+|end)\\n`));
  for (let i = 1; i + 1 < parts.length; i += 2) if (parts[i] !== 'end') byBlock.set(Number(parts[i]), parts[i + 1]!);
  return byBlock;
}

/** A free port on loopback, for a page's own web server. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Does in Chromium what a browser block asks of the reader. */
async function inBrowser(t: TestContext, block: Block, values: Placeholders): Promise<void> {
  const steps = browserSteps(substitute(block.text, values));
  const { page, errors } = await openBrowser(t);
  // The page's server was started in the background by the block before: it may not listen yet.
  await until(
    () =>
      page.goto(steps.url).then(
        () => true,
        () => false,
      ),
    `${steps.url} to answer`,
    15_000,
    100,
  );
  for (const labels of steps.clicks) {
    const pattern = new RegExp(`^(${labels.map((label) => label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
    await page.getByRole('button', { name: pattern }).first().click();
  }
  for (const text of steps.shows) await page.getByText(text).waitFor();
  assert.deepEqual(errors, [], 'the page logged errors');
}

/** Runs a page's script; browser blocks are done in Chromium while the script waits for them. */
async function runPage(t: TestContext, page: string, values: Placeholders, work: string): Promise<void> {
  const blocks = blocksOf(fs.readFileSync(path.join(ROOT, page), 'utf8'));
  if (!blocks.some((block) => block.kind === 'sh' || block.kind === 'ts')) return;
  const fifo = path.join(work, `${page.replace(/[^A-Za-z0-9]+/g, '-')}.fifo`);
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  // A process group of its own: what a sample starts in the background (a page's web server) is stopped with it.
  const child = spawn('bash', ['-c', pageScript(page, blocks, values, work)], {
    cwd: work,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, DOCS_BROWSER: fifo, PORT: String(values.appPort) },
  });
  const stopGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  };
  t.after(stopGroup);
  let stdout = '';
  let stderr = '';
  let browsing = Promise.resolve();
  let handled = 0;
  let failure: unknown;
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk;
    const marks = [...stdout.matchAll(new RegExp(`\\n${BROWSER_MARK} (\\d+)\\n`, 'g'))];
    for (const match of marks.slice(handled)) {
      handled++;
      const block = blocks[Number(match[1])]!;
      browsing = browsing
        .then(() => inBrowser(t, block, values))
        .catch((error: unknown) => {
          failure ??= new Error(`${page}:${block.line}: the browser step failed: ${(error as Error).message}`);
        })
        .then(() => fs.promises.writeFile(fifo, 'go\n'));
    }
  });
  const timer = setTimeout(stopGroup, 120_000);
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, sig) => resolve([code, sig])));
  clearTimeout(timer);
  await browsing;
  stopGroup();
  if (failure) throw failure;
  const byBlock = outputs(stdout);
  const started = [...stdout.matchAll(new RegExp(`${MARK} (\\d+)`, 'g'))].at(-1)?.[1];
  if (status !== 0) {
    const block = started === undefined ? undefined : blocks[Number(started)];
    assert.fail(
      `${page}:${block?.line ?? '?'}: the sample failed (exit ${status}${signal ? `, ${signal}` : ''})\n${block?.text ?? ''}\n--- stdout\n${stdout.slice(-3000)}\n--- stderr\n${stderr.slice(-3000)}`,
    );
  }
  blocks.forEach((block, index) => {
    if (block.kind !== 'output') return;
    let source = index - 1;
    while (source >= 0 && (blocks[source]!.kind === 'other' || blocks[source]!.kind === 'browser')) source--;
    assert.equal(blocks[source]?.kind, 'sh', `${page}:${block.line}: an output block follows a sh block`);
    const actual = byBlock.get(source) ?? '';
    assert.ok(matchesOutput(block.text, actual), `${page}:${block.line}: expected\n${block.text}\ngot\n${actual}`);
  });
}

test('every sample of README.md and docs/ runs as written, in order, against a real server', needs(CURL), async (t) => {
  const work = tempDir(t);
  fs.cpSync(path.join(ROOT, 'examples'), path.join(work, 'examples'), { recursive: true });
  fs.symlinkSync(path.dirname(DIST), path.join(work, 'dist'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(work, 'package.json'));
  // The quick start's server: the bundle in the checkout with its default database, on a free port.
  // Private addresses allowed: docs/guide/webhooks.md's receiver listens on 127.0.0.1, as it says a reader's server needs.
  const server = await spawnServe(t, ['--request-log-rate', '0', '--webhooks-allow-private'], { cwd: work });
  const sdk = /sdk key:\s+(pwk_sdk_\S+)/.exec(server.output())?.[1];
  const secret = /secret key:\s+(pwk_secret_\S+)/.exec(server.output())?.[1];
  assert.ok(sdk && secret, server.output());
  const values = { url: server.url, sdk, secret, appPort: await freePort() };
  for (const page of PAGES) {
    const browser = blocksOf(fs.readFileSync(path.join(ROOT, page), 'utf8')).some((block) => block.kind === 'browser');
    await t.test(page, browser ? needs(CHROMIUM_PROGRAM) : {}, (pageTest) => runPage(pageTest, page, values, work));
  }
  assert.equal(await server.stop(), 0);
});

test('`npx paywalld` in a checkout runs the package bin, dist/paywalld.js, with no install', () => {
  const result = spawnSync('npx', ['--offline', 'paywalld', '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^paywalld \d+\.\d+\.\d+\n/);
});
