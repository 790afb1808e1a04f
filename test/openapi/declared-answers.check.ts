/**
 * Every answer a test server gave during the test suite is one the OpenAPI
 * document declares: its status among the operation's responses and, for a
 * problem, its code in that response's `code` enum. The answers come from
 * every test file (helpers/answers.ts), so this runs after all of them
 * (suite.ts, which `npm test` runs); run by hand, it runs the suite first.
 * Operations the suite never reached are listed, not failed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { routeErrors } from '../../src/http/route-errors.ts';
import { statusOf } from '../../src/http/status.ts';
import { ANSWERS_DIR_VARIABLE, type RecordedAnswer } from '../helpers/answers.ts';
import { startTestServer } from '../helpers/server.ts';
import { runRecordedSuite } from '../suite.ts';

type Json = Record<string, any>;

/** Answers the edge gives when no route matched: a preflight, a path that is not there, a method the path does not take. */
const UNMATCHED = new Set(['204 -', '404 not_found', '405 method_not_allowed']);
/** Not an answer: the client went away first (the metrics count it as 499). */
const CLIENT_GONE = 499;

async function recordedAnswers(): Promise<Map<string, { answer: RecordedAnswer; files: Set<string> }>> {
  let dir = process.env[ANSWERS_DIR_VARIABLE];
  if (!dir) {
    const suite = await runRecordedSuite();
    dir = suite.answersDir;
  }
  const answers = new Map<string, { answer: RecordedAnswer; files: Set<string> }>();
  for (const name of fs.readdirSync(dir)) {
    const { file, answers: list } = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { file: string; answers: RecordedAnswer[] };
    for (const answer of list) {
      const key = JSON.stringify(answer);
      if (!answers.has(key)) answers.set(key, { answer, files: new Set() });
      answers.get(key)!.files.add(file);
    }
  }
  return answers;
}

test('every status and problem code the test suite saw a route answer is declared in the OpenAPI document', async (t) => {
  const answers = await recordedAnswers();
  // The document depends on one setting: with --require-key, sending events needs a key (missing_api_key).
  const servers = [await startTestServer(t), await startTestServer(t, { requireKey: true })];
  const documents = await Promise.all(servers.map(async ({ url }) => (await (await fetch(`${url}/api/openapi.json`)).json()) as Json));
  const routes = servers[0]!.server.router.routes();

  /** status → the codes the operation declares for it ('-' for a response that is no problem), over every document. */
  const declared = (method: string, pattern: string): Map<number, Set<string>> => {
    const out = new Map<number, Set<string>>();
    const add = (status: number, code: string) => {
      if (!out.has(status)) out.set(status, new Set());
      out.get(status)!.add(code);
    };
    const listed = routes.find((r) => r.method === method && r.pattern === pattern);
    assert.ok(listed, `${method} ${pattern} answered in a test but the server has no such route`);
    if (listed.route.doc.browser) {
      // Pages for a browser are not in the document: their own declaration is what the document would say.
      for (const status of Object.keys(listed.route.doc.responses)) add(Number(status), '-');
      for (const code of routeErrors({ method: listed.method as 'GET', pattern, ...listed.route })) add(statusOf(code), code);
      return out;
    }
    for (const document of documents) {
      const operation = document.paths[pattern.replace(/:([A-Za-z]+)/g, '{$1}')]?.[method.toLowerCase()];
      assert.ok(operation, `${method} ${pattern} is not in the OpenAPI document`);
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const problem = response.content?.['application/problem+json']?.schema;
        if (!problem) add(Number(status), '-');
        for (const code of problem?.allOf[1].properties.code.enum ?? []) add(Number(status), code);
      }
    }
    return out;
  };

  const undeclared: string[] = [];
  const seenOperations = new Set<string>();
  for (const { answer, files } of answers.values()) {
    const [method, pattern, status, problem] = answer;
    const code = problem ?? '-';
    const where = `(seen in ${[...files].sort().join(', ')})`;
    if (status === CLIENT_GONE) continue;
    if (method === null || pattern === null) {
      if (!UNMATCHED.has(`${status} ${code}`)) undeclared.push(`${status} ${code} with no route ${where}`);
      continue;
    }
    seenOperations.add(`${method} ${pattern}`);
    const codes = declared(method, pattern).get(status);
    // A 500 from a stream that failed after its headers carries no problem; 500 is declared everywhere.
    const allowed = codes?.has(code) || (status === 500 && code === '-' && codes !== undefined);
    if (!allowed) undeclared.push(`${method} ${pattern} answered ${status} ${code}, which it does not declare ${where}`);
  }
  assert.deepEqual(undeclared, [], 'answers the OpenAPI document does not declare');

  // The recording works: the suite reached most operations, and with errors as well as successes.
  const operations = routes.filter((r) => !r.route.doc.browser).map((r) => `${r.method} ${r.pattern}`);
  const unseen = operations.filter((operation) => !seenOperations.has(operation));
  if (unseen.length > 0) t.diagnostic(`operations no test reached: ${unseen.join(', ')}`);
  assert.ok(seenOperations.size >= operations.length * 0.8, `the suite reached ${seenOperations.size} of ${operations.length} operations`);
  assert.ok([...answers.values()].some(({ answer }) => answer[2] === 422 && answer[3] === 'validation_failed'));
  for (const document of documents) {
    const allCodes = new Set(document.components.schemas.Problem.properties.code.enum);
    for (const unmatched of UNMATCHED) {
      const code = unmatched.split(' ')[1]!;
      if (code !== '-') assert.ok(allCodes.has(code), `${code} is in the Problem schema`);
    }
  }
});
