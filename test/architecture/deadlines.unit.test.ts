/**
 * No test gives what must happen less than 10 s (CONTRIBUTING.md, "Tests"):
 * a shorter deadline is a claim about speed, which fails on a loaded machine
 * ("timed out after 1000 ms waiting for change 1 heard") and belongs in
 * bench/. This reads every call of until (helpers/until.ts: its third
 * argument) and within (helpers/instances.ts: its first) in test/, and fails
 * on a deadline under 10 000 ms, or one it cannot read as a number.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const TEST = path.resolve(import.meta.dirname, '..');
const LEAST_MS = 10_000;
/** Which argument is the deadline, by function. */
const DEADLINE_ARGUMENT: Record<string, number> = { until: 2, within: 0 };
const CALL = /(?<![\w.]|function\s)(until|within)\s*\(/g;
const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
/** within passes its caller's deadline on to until: the scan checks it at the caller. */
const PASSED_ON = { file: path.join('helpers', 'instances.ts'), name: 'ms' };

function sources(dir = TEST): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * `text` with its comments and the literal parts of its strings blanked out
 * (a template literal's `${…}` kept: a call may sit in one), lines and
 * offsets kept, so that only code is scanned.
 */
function code(text: string): string {
  const out = [...text];
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  /** For each open `${`, the depth of braces inside it. */
  const templates: number[] = [];
  let i = 0;
  /** Blanks a template literal's text from `i` up to its end or its next `${`. */
  const templateText = () => {
    const from = i;
    while (i < text.length && text[i] !== '`' && !(text[i] === '$' && text[i + 1] === '{')) i += text[i] === '\\' ? 2 : 1;
    blank(from, i);
    if (text[i] === '$') {
      templates.push(0);
      i += 2;
    } else i++;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      blank(i, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i) + 2;
      blank(i, end);
      i = end;
    } else if (c === "'" || c === '"') {
      const from = ++i;
      while (i < text.length && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      blank(from, i++);
    } else if (c === '`') {
      i++;
      templateText();
    } else if (templates.length > 0 && c === '{') {
      templates[templates.length - 1]!++;
      i++;
    } else if (templates.length > 0 && c === '}') {
      i++;
      if (templates.at(-1) === 0) {
        templates.pop();
        templateText();
      } else templates[templates.length - 1]!--;
    } else i++;
  }
  return out.join('');
}

/** The top-level arguments of the call whose `(` is at `open`, as source text (strings, template literals, comments and brackets skipped over). */
function callArguments(text: string, open: number): string[] {
  const args: string[] = [];
  const stack: string[] = [];
  let start = open + 1;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i) + 1;
    } else if (c in CLOSING) {
      stack.push(CLOSING[c]!);
    } else if (stack.length > 0 && c === stack.at(-1)) {
      stack.pop();
    } else if (stack.length === 0 && (c === ',' || c === ')')) {
      const arg = text.slice(start, i).trim();
      if (arg !== '') args.push(arg);
      if (c === ')') return args;
      start = i + 1;
    }
  }
  return args;
}

/** The milliseconds a deadline argument says: a number literal, or a `const` of one in the same file; undefined when neither. */
function milliseconds(arg: string, text: string): number | undefined {
  const literal = (source: string) => (/^\d[\d_]*(?:\.\d+)?$/.test(source) ? Number(source.replaceAll('_', '')) : undefined);
  if (literal(arg) !== undefined) return literal(arg);
  const constant = new RegExp(`\\bconst\\s+${arg.replace(/[^\w$]/g, '')}\\s*=\\s*([\\d_.]+)\\s*;`).exec(text);
  return /^[A-Za-z_$][\w$]*$/.test(arg) && constant ? literal(constant[1]!) : undefined;
}

/** Every until/within call in `text` whose deadline is under LEAST_MS or unreadable, as `file:line: call`. */
function shortDeadlines(file: string, source: string): string[] {
  const text = code(source);
  return [...text.matchAll(CALL)].flatMap((match) => {
    const open = match.index + match[0].length - 1;
    const args = callArguments(text, open);
    const deadline = args[DEADLINE_ARGUMENT[match[1]!]!];
    if (deadline === undefined || (file === PASSED_ON.file && deadline === PASSED_ON.name)) return [];
    const ms = milliseconds(deadline, text);
    if (ms !== undefined && ms >= LEAST_MS) return [];
    const line = text.slice(0, open).split('\n').length;
    return [`${file}:${line}: ${match[1]}(…) with a deadline of ${ms === undefined ? `${deadline}, not a number` : `${ms} ms`}`];
  });
}

test('the scan reads the deadline of a call on one line, over several lines, and through a constant', () => {
  assert.deepEqual(callArguments("until(() => f(a, [b, c]), 'it, then', 1_000, 50)", 5), ['() => f(a, [b, c])', "'it, then'", '1_000', '50']);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, for the scan
  assert.deepEqual(shortDeadlines('x.ts', "await until(() => x === 1, 'x');\nawait until(() => y, `y ${1}`, 12_000);"), []);
  assert.deepEqual(shortDeadlines('x.ts', "await until(\n  () => ok(), // a comment, with a comma\n  'ok',\n  1000,\n);"), [
    'x.ts:1: until(…) with a deadline of 1000 ms',
  ]);
  assert.deepEqual(shortDeadlines('x.ts', "const SHORT = 5_000;\nawait within(SHORT, 'b', async () => true);"), [
    'x.ts:2: within(…) with a deadline of 5000 ms',
  ]);
  assert.deepEqual(shortDeadlines('x.ts', "await within(limit(), 'c', f);"), ['x.ts:1: within(…) with a deadline of limit(), not a number']);
  assert.deepEqual(shortDeadlines('x.ts', 'export async function until(condition, what = "it", ms = 10_000) {}'), []);
  assert.deepEqual(shortDeadlines('x.ts', "// until(f, 'in a comment', 1)\nconst s = 'within(1, a, b)';"), []);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, for the scan
  assert.deepEqual(shortDeadlines('x.ts', "log(`after ${(await within(1000, 'key', f)).toFixed(0)} ms, ${`${{ a: 1 }.a}`}`);"), [
    'x.ts:1: within(…) with a deadline of 1000 ms',
  ]);
});

test('no test waits less than 10 s for what must happen', () => {
  const files = sources();
  assert.ok(files.length > 100);
  const short = files.flatMap((file) => shortDeadlines(path.relative(TEST, file), fs.readFileSync(file, 'utf8')));
  assert.deepEqual(short, [], `wait up to ${LEAST_MS} ms (or leave until's default): a shorter deadline is a claim about speed, measured in bench/`);
});
