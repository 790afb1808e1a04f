/**
 * docs/reference/http-api.md lists every operation of the OpenAPI document
 * the server serves, row for row: the table is generated from the document
 * (this test prints it when it differs), so the page cannot miss a route or
 * describe one that is gone. The schemas stay in the document itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.ts';

const PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/reference/http-api.md');
const START = '<!-- operations: generated from GET /api/openapi.json by test/docs/http-api-doc.test.ts -->';
const END = '<!-- /operations -->';
const SCHEMES: Record<string, string> = { sdkKey: 'sdk', secretKey: 'secret', session: 'session' };

interface Operation {
  operationId: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
}

/** The table the page holds: one row per operation, in the document's order. */
function operationsTable(document: { paths: Record<string, Record<string, Operation>> }): string {
  const rows = ['| operation | method and path | key | what |', '| --- | --- | --- | --- |'];
  for (const [pattern, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const keys = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement).map((scheme) => SCHEMES[scheme] ?? scheme));
      const summary = (operation.summary ?? '').replaceAll('|', '\\|');
      rows.push(`| \`${operation.operationId}\` | \`${method.toUpperCase()} ${pattern}\` | ${keys.length > 0 ? keys.join(' or ') : 'none'} | ${summary} |`);
    }
  }
  return rows.join('\n');
}

test('docs/reference/http-api.md lists every operation of the OpenAPI document, with its key and summary', async (t) => {
  const { url } = await startTestServer(t);
  const document = await (await fetch(`${url}/api/openapi.json`)).json();
  const expected = operationsTable(document);
  assert.ok(expected.split('\n').length > 40, 'the document has fewer operations than expected');
  const text = fs.readFileSync(PAGE, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  assert.ok(start >= 0 && end > start, `docs/reference/http-api.md has no ${START} … ${END} block`);
  const table = text.slice(start + START.length, end).trim();
  assert.equal(table, expected, `docs/reference/http-api.md's table differs from the OpenAPI document; it should read:\n${expected}`);
});
