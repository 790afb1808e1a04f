// How long the dashboard's visual editor takes to handle a keystroke on a
// big paywall (bench/notes/visual-editor.md, "The visual editor"): a document of NODES
// nodes (text rows in stacks, each text its own string key) in LOCALES
// locales, opened in headless Chromium against a real server; KEYS
// characters typed into the selected text's "Text" field, then into a cell
// of the Strings table. A keystroke's time runs from its keydown to the end
// of the frame that shows it (the next animation frame, then a task after
// it): the edit, the draft's history, the outline and the form redrawn.
// The server's check and preview come after a pause and are not counted.
// Prints the median, the 95th percentile and the worst, each in ms; the
// target is under 50 ms a keystroke on a quiet machine.
// Usage: node --import tsx bench/editor-keystroke.ts [NODES] [LOCALES] [KEYS]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startServer } from '../src/app.ts';
import { serveConfig } from '../src/config.ts';
import { Logger } from '../src/log.ts';

const NODES = Number(process.argv[2] ?? 300);
const LOCALES = Number(process.argv[3] ?? 20);
const KEYS = Number(process.argv[4] ?? 40);
const CHROMIUM = process.env.PAYWALLD_CHROMIUM ?? '/usr/bin/chromium';

/** About NODES nodes: a root stack with a purchase button and rows of three (a horizontal stack, an icon, a text with its own key). */
function bigPaywall(): Record<string, unknown> {
  const locales = ['en', ...Array.from({ length: LOCALES - 1 }, (_, i) => `l${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ''}`)];
  const children: unknown[] = [{ type: 'purchase_button', props: { slot: 'main', text_key: 'cta' } }];
  const keys = ['cta'];
  let count = 2;
  for (let row = 0; count < NODES; row++) {
    keys.push(`line_${row}`);
    children.push({
      type: 'stack',
      props: { axis: 'horizontal', spacing: 8 },
      children: [
        { type: 'icon', props: { name: 'check' } },
        { type: 'text', props: { text_key: `line_${row}` } },
      ],
    });
    count += 3;
  }
  const strings = Object.fromEntries(locales.map((locale) => [locale, Object.fromEntries(keys.map((key) => [key, `${key} in ${locale}`]))]));
  return { name: 'Big', default_locale: 'en', strings, slots: { main: 'pro' }, root: { type: 'stack', props: { axis: 'vertical', spacing: 4 }, children } };
}

/** Times each keystroke: from its keydown to a task after its next animation frame (tsx renames functions, so the page gets strings). */
const INSTRUMENT = `window.keystrokes = [];
addEventListener('keydown', (event) => {
  const start = event.timeStamp;
  requestAnimationFrame(() => setTimeout(() => window.keystrokes.push(performance.now() - start)));
}, true);`;
/** A typist's pace: a keystroke every 80 ms, faster than the editor's 300 ms pause before it asks the server. */
const PACE_MS = 80;

/** Types KEYS characters into the focused field at PACE_MS and gives each one's time to its next frame. */
async function typed(page: Page): Promise<number[]> {
  await page.evaluate('window.keystrokes.splice(0)');
  for (let i = 0; i < KEYS; i++) await page.keyboard.type(String.fromCharCode(97 + (i % 26)), { delay: PACE_MS });
  await page.waitForFunction(`window.keystrokes.length >= ${KEYS}`);
  return page.evaluate('window.keystrokes.splice(0)');
}

function summary(what: string, times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return `${what}: median ${at(0.5)} ms, p95 ${at(0.95)} ms, worst ${sorted.at(-1)!.toFixed(1)} ms over ${times.length} keystrokes`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-editor-bench-'));
const server = await startServer(
  serveConfig({ port: '0', host: '127.0.0.1', db: path.join(dir, 'bench.db'), 'rate-limit-sdk': '0', 'rate-limit-api': '0' }, {}),
  new Logger('error'),
);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const url = `http://127.0.0.1:${server.port}`;
  const secret = server.bootstrap!.keys.secret;
  const put = async (route: string, body: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
  };
  await put('/api/products/pro', { name: 'Pro' });
  await put('/api/paywalls/big', bigPaywall());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${url}/dashboard/`);
  await page.getByRole('button', { name: 'Sign in with an API key' }).click();
  await page.getByLabel('Secret key').fill(secret);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.goto(`${url}/dashboard/#/paywalls/big`);
  const line = `line_${Math.floor(NODES / 6)} in en`;
  await page
    .getByRole('tree', { name: 'Outline' })
    .getByRole('treeitem', { name: `text: ${line}` })
    .click();
  await page.getByRole('region', { name: 'Properties' }).getByLabel('Text', { exact: true }).focus();
  await page.keyboard.press('End');
  await page.evaluate(INSTRUMENT);
  console.log(`${NODES} nodes, ${LOCALES} locales, load average ${os.loadavg()[0]!.toFixed(2)} (the figure needs a quiet machine)`);
  console.log(summary('Properties "Text"', await typed(page)));
  await page.getByRole('tab', { name: 'Strings' }).click();
  await page.getByLabel('cta in en', { exact: true }).focus();
  console.log(summary('a Strings cell', await typed(page)));
} finally {
  await browser.close();
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
