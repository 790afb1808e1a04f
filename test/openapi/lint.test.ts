/**
 * The served OpenAPI document passes Redocly CLI's `recommended` rules with
 * no error and no warning. One rule meets three exceptions, kept in Redocly's
 * own ignore file and asserted here to stay exactly these:
 * operation-4xx-response on the operations that can answer no 4xx at all
 * (public, no parameters, no body, no key), which document none rather than
 * an error they never give. Redocly runs offline (telemetry and the update
 * check off).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

/** Operations that can give no 4xx: any client error they could meet, they do not have. */
const NO_CLIENT_ERROR = ['#/paths/~1healthz/get/responses', '#/paths/~1readyz/get/responses', '#/paths/~1api~1openapi.json/get/responses'];

test("the OpenAPI document passes Redocly's recommended rules", async (t) => {
  const { url } = await startTestServer(t);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'openapi.json'), await (await fetch(`${url}/api/openapi.json`)).text());
  fs.writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  const ignored = NO_CLIENT_ERROR.map((pointer) => `    - '${pointer}'\n`).join('');
  fs.writeFileSync(path.join(dir, '.redocly.lint-ignore.yaml'), `openapi.json:\n  operation-4xx-response:\n${ignored}`);
  const result = spawnSync(process.execPath, [REDOCLY, 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  assert.ok(result.stdout.trim().startsWith('{'), `redocly printed no report: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as {
    totals: { errors: number; warnings: number; ignored: number };
    problems: { ruleId: string; severity: string; ignored?: boolean; message: string; location: { pointer: string }[] }[];
  };
  const problems = report.problems.filter((p) => !p.ignored).map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  assert.deepEqual(problems, []);
  assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: NO_CLIENT_ERROR.length });
  assert.equal(result.status, 0);
});
