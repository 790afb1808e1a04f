/**
 * The configuration commands on PostgreSQL answer as on SQLite: projects,
 * keys, integrations, apply, plan, export and fallback run through the real
 * CLI against a real PostgreSQL and a SQLite file side by side, and what
 * they print and write is compared.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type CliResult, runCli } from '../helpers/cli.ts';
import { exampleCopy, snapshotFiles } from '../helpers/config-dir.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';

const SECRET = 'hunter2-s3cret';
const CLEAN = { PAYWALLD_DB: '', DATABASE_URL: '', PAYWALLD_SERVER: '', PAYWALLD_KEY: '' };

function ok(result: CliResult, what: string): string {
  assert.equal(result.status, 0, `${what}: ${result.stderr}`);
  assert.ok(!(result.stdout + result.stderr).includes(SECRET), `${what} showed the password`);
  return result.stdout;
}

/** Ids, keys and times differ between two databases; what remains must be equal. */
function comparable(text: string): string {
  return text
    .replace(/prj_\w+/g, 'prj_…')
    .replace(/key_\w+/g, 'key_…')
    .replace(/pwk_(sdk|secret)_\w+/g, 'pwk_$1_…')
    .replace(/\b1\d{12}\b/g, 'TIME')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
}

test('projects, keys, integrations, apply, plan, export and fallback on PostgreSQL answer as on SQLite', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const dir = tempDir(t);
  const targets = { sqlite: path.join(dir, 'paywalld.db'), postgres: url.replace('postgres://postgres@', `postgres://postgres:${SECRET}@`) };
  const outputs: Record<string, string[]> = { sqlite: [], postgres: [] };
  const config = path.join(dir, 'revenuecat.json');
  fs.writeFileSync(config, JSON.stringify({ authorization: 'Bearer a-long-random-value-you-also-give-revenuecat' }));

  for (const [kind, db] of Object.entries(targets)) {
    const out = outputs[kind]!;
    // apply leaves a sync record in the directory: each backend gets a copy of its own.
    const example = exampleCopy(t);
    /** Runs a command on this backend; its output is compared with the other backend's unless `compare` is false. */
    const cli = async (args: string[], compare = true) => {
      // PostgreSQL keeps the connector secrets' key where PAYWALLD_SECRETS_KEY_FILE says (docs/operations/scale-out.md); SQLite beside the file.
      const env = kind === 'postgres' ? { ...CLEAN, PAYWALLD_SECRETS_KEY_FILE: path.join(dir, 'secrets.key') } : CLEAN;
      const text = ok(await runCli([...args, '--db', db], { env, cwd: dir }), `${kind}: ${args.join(' ')}`);
      if (compare) out.push(comparable(text).replaceAll(`-${kind}`, '-KIND').replaceAll(example, 'EXAMPLE'));
      return text;
    };
    const created = JSON.parse(await cli(['projects', 'create', 'demo', '--json']));
    const project = created.project.id as string;
    await cli(['projects', 'list']);
    const key = JSON.parse(await cli(['keys', 'create', '--project', project, '--scope', 'secret', '--json']));
    await cli(['keys', 'revoke', key.id]);
    // Listed by creation time, then id: keys made in the same millisecond come in the order of their random ids.
    const listed = JSON.parse(await cli(['keys', 'list', '--project', project, '--json'], false)).keys as unknown[];
    out.push(
      listed
        .map((entry) => comparable(JSON.stringify(entry)))
        .sort()
        .join('\n'),
    );
    await cli(['integrations', 'set', 'revenuecat', '--project', project, '--config', config, '--json']);
    await cli(['integrations', 'show', 'revenuecat', '--project', project, '--json']);
    await cli(['plan', example, '--publish']);
    await cli(['apply', example, '--publish']);
    await cli(['plan', example, '--publish']);
    const exported = path.join(dir, `export-${kind}`);
    await cli(['export', exported]);
    out.push(JSON.stringify(snapshotFiles(exported)));
    const bundle = path.join(dir, `fallback-${kind}.json`);
    await cli(['fallback', '--out', bundle]);
    out.push(comparable(fs.readFileSync(bundle, 'utf8')));

    // A saved plan records the target without its password.
    const saved = path.join(dir, `plan-${kind}.json`);
    await cli(['plan', example, '--out', saved]);
    assert.ok(!fs.readFileSync(saved, 'utf8').includes(SECRET));
  }
  assert.equal(outputs.postgres!.length, outputs.sqlite!.length);
  for (const [i, sqlite] of outputs.sqlite!.entries()) {
    assert.equal(outputs.postgres![i]!.replaceAll(targets.postgres.replace(SECRET, '***'), 'DB'), sqlite.replaceAll(targets.sqlite, 'DB'), `step ${i}`);
  }
  assert.match(outputs.postgres!.join('\n'), /No changes/);
});

test('on PostgreSQL a missing project is refused as on SQLite, and an unreachable server is exit 1 without the password', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const refused = await runCli(['keys', 'list', '--project', 'prj_nothere', '--db', url], { env: CLEAN });
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /prj_nothere/);
  const unreachable = await runCli(['projects', 'list', '--db', `postgres://u:${SECRET}@127.0.0.1:1/x`], { env: CLEAN });
  assert.equal(unreachable.status, 1);
  assert.match(unreachable.stderr, /ECONNREFUSED/);
  assert.ok(!unreachable.stderr.includes(SECRET));
});
