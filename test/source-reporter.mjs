// The reporter of the suite's node:test run (suite.ts): node:test's own (spec on a terminal, tap
// otherwise), with each place in a bundled test file (bundle.ts) named by its source file and line.
// The test processes run without --enable-source-maps, which parsed every bundle's source map at
// load: about 0.25 s of CPU in each of some 200 processes (bench/notes/test-suite.md). A map is read
// here instead, only when a failure, a diagnostic or a location names its bundle. Plain JavaScript:
// node --test loads its reporters without the TypeScript loader.
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spec, tap } from 'node:test/reporters';

/** A place in a bundled file: its path (or file URL), line and column, as stack traces and node:test name it. */
const BUNDLED_PLACE = /((?:file:\/\/)?\/[^\s():'"]*[\\/]paywalld-tests[\\/]run-[^\s():'"]+\.mjs):(\d+):(\d+)/g;

const maps = new Map();

/** The source map of a bundled file, or null where it has none. */
function mapOf(file) {
  if (!maps.has(file)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // No map: the place stays as it is.
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** The source file (named as `where` is: a path or a file URL), line and column a bundled place was built from, or undefined. */
function sourceOf(where, line, column) {
  const file = where.startsWith('file://') ? fileURLToPath(where) : where;
  const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
  if (!entry?.originalSource) return undefined;
  const source = path.resolve(path.dirname(file), entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : entry.originalSource);
  return { file: where.startsWith('file://') ? pathToFileURL(source).href : source, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

function mapped(text) {
  return text.replace(BUNDLED_PLACE, (place, where, line, column) => {
    const source = sourceOf(where, line, column);
    return source === undefined ? place : `${source.file}:${source.line}:${source.column}`;
  });
}

/** An error as the reporters print it, its stack, message and cause with source places. */
function mappedError(error, seen = new Set()) {
  if (error === null || typeof error !== 'object' || seen.has(error)) return error;
  seen.add(error);
  for (const key of ['stack', 'message']) {
    const text = error[key];
    if (typeof text !== 'string') continue;
    const value = mapped(text);
    if (value === text) continue;
    // Defined anew: the errors Node 24 hands a reporter have a read-only stack.
    const own = Object.getOwnPropertyDescriptor(error, key);
    try {
      Object.defineProperty(error, key, { value, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
    } catch {
      // Neither writable nor configurable: printed as it is.
    }
  }
  if ('cause' in error) mappedError(error.cause, seen);
  return error;
}

/** The event with its test's place and its error, message or diagnostic named by their sources. */
function mappedEvent(event) {
  const data = event.data;
  if (data === null || typeof data !== 'object') return event;
  if (typeof data.file === 'string' && data.line !== undefined) Object.assign(data, sourceOf(data.file, data.line, data.column ?? 1));
  if (typeof data.message === 'string') data.message = mapped(data.message);
  if (data.details?.error) mappedError(data.details.error);
  return event;
}

export default async function* sourceReporter(source) {
  async function* events() {
    for await (const event of source) yield mappedEvent(event);
  }
  if (!process.stdout.isTTY) {
    yield* tap(events());
    return;
  }
  const printer = new spec();
  Readable.from(events()).pipe(printer);
  yield* printer;
}
