/**
 * docs/reference/errors.md lists every error code the server can answer with, with its
 * status, and the OpenAPI document lists the same codes: the codes come from
 * the two tables the server answers from (the domain's ErrorCode statuses in
 * src/http/status.ts and the edge's EDGE_STATUS in src/http/problem.ts), so a
 * new code without a row fails here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EDGE_STATUS, type ProblemCode } from '../../src/http/problem.ts';
import { DOMAIN_ERROR_CODES, statusOf } from '../../src/http/status.ts';
import { startTestServer } from '../helpers/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** code → status of each row of the first table of docs/reference/errors.md. */
function documentedCodes(): Map<string, number> {
  const text = fs.readFileSync(path.join(ROOT, 'docs/reference/errors.md'), 'utf8');
  const rows = new Map<string, number>();
  for (const [, status, code] of text.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)) rows.set(code!, Number(status));
  return rows;
}

const sourceCodes = (): ProblemCode[] => [...new Set<ProblemCode>([...DOMAIN_ERROR_CODES, ...(Object.keys(EDGE_STATUS) as ProblemCode[])])].sort();

test('docs/reference/errors.md lists every error code the server can answer with, with its status, and no other', () => {
  const documented = documentedCodes();
  const source = sourceCodes();
  assert.ok(source.length >= 25, `found ${source.length} codes in the source`);
  assert.deepEqual([...documented.keys()].sort(), source);
  for (const code of source) assert.equal(documented.get(code), statusOf(code), `status of ${code}`);
});

test('the OpenAPI document lists the same codes as docs/reference/errors.md, each under its status', async (t) => {
  const { url } = await startTestServer(t);
  const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as Record<string, any>;
  const documented = documentedCodes();
  assert.deepEqual([...document.components.schemas.Problem.properties.code.enum].sort(), [...documented.keys()].sort());
  for (const item of Object.values(document.paths) as Record<string, any>[]) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const codes: string[] = response.content?.['application/problem+json']?.schema.allOf[1].properties.code.enum ?? [];
        for (const code of codes) assert.equal(documented.get(code), Number(status), `${operation.operationId}: ${code} under ${status}`);
      }
    }
  }
});
