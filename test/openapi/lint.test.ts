/**
 * The served OpenAPI document passes Redocly CLI's `recommended` rules with
 * no error, no warning and no exception: every operation documents a 4xx,
 * since any request may answer 431 `headers_too_large` (the public ones with
 * no parameter, body or key answer no other). Redocly runs offline
 * (telemetry and the update check off).
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

test("the OpenAPI document passes Redocly's recommended rules", async (t) => {
  const { url } = await startTestServer(t);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'openapi.json'), await (await fetch(`${url}/api/openapi.json`)).text());
  fs.writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  const result = spawnSync(process.execPath, [REDOCLY, 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  assert.ok(result.stdout.trim().startsWith('{'), `redocly printed no report: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as {
    totals: { errors: number; warnings: number; ignored: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  assert.deepEqual(problems, []);
  assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
  assert.equal(result.status, 0);
});
