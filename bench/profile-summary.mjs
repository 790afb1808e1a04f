#!/usr/bin/env node
// Prints the functions of a V8 CPU profile (node --cpu-prof) with the most
// self time. Locations in the bundle are mapped back to src/ through the
// bundle's source map when one is found (next to the profiled file, else in
// dist/).
// Usage: node bench/profile-summary.mjs FILE.cpuprofile [TOP]   (TOP defaults to 15)
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

const maps = new Map();
function sourceMapOf(url) {
  if (maps.has(url)) return maps.get(url);
  let map;
  if (url.startsWith('file://')) {
    const file = fileURLToPath(url);
    const candidate = [`${file}.map`, path.join(DIST, `${path.basename(file)}.map`)].find((p) => fs.existsSync(p));
    if (candidate) map = new SourceMap(JSON.parse(fs.readFileSync(candidate, 'utf8')));
  }
  maps.set(url, map);
  return map;
}

/** "src/http/server.ts:123" for a bundled frame, else the script's base name and line. */
function location({ url, lineNumber, columnNumber }) {
  if (!url) return '';
  const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber);
  if (entry?.originalSource) {
    const source = entry.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/');
    return `${source}:${entry.originalLine + 1}`;
  }
  return `${url.startsWith('node:') ? url : path.basename(url)}:${lineNumber + 1}`;
}

/** The `top` functions by self time: [{ name, where, selfMs, share }] plus the profile's totals. */
export function summarise(file, top = 15) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const functions = new Map();
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const key = `${frame.functionName}\0${frame.url}\0${frame.lineNumber}\0${frame.columnNumber}`;
    const entry = functions.get(key) ?? { frame, us: 0 };
    entry.us += us;
    functions.set(key, entry);
  }
  const rows = [...functions.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map(({ frame, us }) => ({ name: frame.functionName || '(anonymous)', where: location(frame), selfMs: us / 1000, share: us / busyUs }));
  return { rows, busyMs: busyUs / 1000, idleMs: idleUs / 1000 };
}

/** The summary as Markdown table lines. */
export function summaryTable(file, top = 15) {
  const { rows, busyMs, idleMs } = summarise(file, top);
  return [
    `${path.basename(file)}: ${busyMs.toFixed(0)} ms busy, ${idleMs.toFixed(0)} ms idle`,
    '',
    '| self ms | % of busy | function | where |',
    '| ---: | ---: | --- | --- |',
    ...rows.map((r) => `| ${r.selfMs.toFixed(1)} | ${(r.share * 100).toFixed(1)} % | \`${r.name}\` | ${r.where} |`),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('Usage: node bench/profile-summary.mjs FILE.cpuprofile [TOP]');
    process.exit(2);
  }
  console.log(summaryTable(file, top ? Number(top) : 15).join('\n'));
}
