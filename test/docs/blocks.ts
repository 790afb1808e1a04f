/**
 * The code blocks of a Markdown page, as test/docs/samples.browser.test.ts runs them
 * (the convention is in CONTRIBUTING.md, "Samples in the docs"):
 *
 * - ```sh (or bash) blocks run, in page order, in one bash session;
 * - ```ts (or js) blocks are type-checked and run as modules of their own;
 * - `norun` after the language (```sh norun) leaves a block out;
 * - `output` after the language (```json output, ```text output) is what the
 *   runnable block before it prints, `…` standing for anything;
 * - ```text browser is what the reader does in a browser, which the test does
 *   in Chromium at that point of the page (`browserSteps`);
 * - every other block (json bodies, text) is an illustration and is not run.
 */

export type Kind = 'sh' | 'ts' | 'output' | 'browser' | 'other';

export interface Block {
  kind: Kind;
  /** 1-based line of the opening fence. */
  line: number;
  info: string;
  text: string;
}

function kindOf(info: string): Kind {
  const [language = '', ...words] = info.trim().split(/\s+/);
  if (words.includes('norun')) return 'other';
  if (words.includes('output')) return 'output';
  if (words.includes('browser')) return 'browser';
  if (language === 'sh' || language === 'bash') return 'sh';
  if (language === 'ts' || language === 'js') return 'ts';
  return 'other';
}

export function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && lines[i] !== '```') body.push(lines[i]!);
    blocks.push({ kind: kindOf(open[1]!), line: start + 1, info: open[1]!.trim(), text: `${body.join('\n')}\n` });
  }
  return blocks;
}

/** The values a page's placeholders stand for when its samples run. */
export interface Placeholders {
  url: string;
  sdk: string;
  secret: string;
  /** The port of a page's own web server (8080 in the text). */
  appPort: number;
}

/**
 * The only rewriting a sample gets: the default address and the key
 * placeholders become the test server's, so that a sample pasted by a reader
 * and the one tested are the same text.
 */
export function substitute(text: string, values: Placeholders): string {
  const host = new URL(values.url).host;
  return text
    .replaceAll('https://paywall.example.com', values.url)
    .replaceAll('127.0.0.1:8787', host)
    .replaceAll('localhost:8787', host)
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${values.appPort}`)
    .replaceAll('pwk_sdk_…', values.sdk)
    .replaceAll('pwk_secret_…', values.secret);
}

/** Whether `actual` is what an output block shows: whitespace is ignored, `…` matches anything. */
export function matchesOutput(expected: string, actual: string): boolean {
  const squeeze = (text: string) => text.replace(/\s+/g, '');
  const pattern = squeeze(expected)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`, 's').test(squeeze(actual));
}

/** What a browser block asks the reader to do: open a page, click one of some buttons, see some texts. */
export interface BrowserSteps {
  url: string;
  /** Each click: the button's possible labels (one per variant of the paywall). */
  clicks: string[][];
  /** Texts the page shows at the end. */
  shows: string[];
}

/** Reads `Open URL …`, `Click "A" (or "B")…;` and `says "TEXT"` from a browser block's sentences. */
export function browserSteps(text: string): BrowserSteps {
  const url = /\bOpen (https?:\/\/\S+?)[.,:;]?\s/.exec(`${text} `)?.[1];
  if (!url) throw new Error(`a browser block names the page to open: "Open http://…"\n${text}`);
  const quoted = (part: string) => [...part.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
  return {
    url,
    clicks: [...text.matchAll(/\bClick ([^;]*)/g)].map((match) => quoted(match[1]!)),
    shows: [...text.matchAll(/\bsays ("[^"]+")/g)].flatMap((match) => quoted(match[1]!)),
  };
}
