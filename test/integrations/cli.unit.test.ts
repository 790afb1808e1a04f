// paywalld integrations set|show on a database file: no server (npm run test:no-http).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

test('integrations set reads the configuration from a file, show prints a fingerprint and never the secret', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'cli.db');
  const { project } = JSON.parse((await runCli(['projects', 'create', 'p', '--json', '--db', db])).stdout);
  const config = path.join(dir, 'stripe.json');
  fs.writeFileSync(config, JSON.stringify({ signing_secret: 'whsec_cli_secret_value' }));
  const set = await runCli(['integrations', 'set', 'stripe', '--project', project.id, '--config', config, '--json', '--db', db]);
  assert.equal(set.status, 0, set.stderr);
  const shown = JSON.parse(set.stdout);
  assert.equal(shown.webhook_path, `/hooks/stripe/${project.id}`);
  assert.match(shown.fingerprint, /^sha256:[0-9a-f]{16}$/);
  const show = await runCli(['integrations', 'show', 'stripe', '--project', project.id, '--db', db]);
  assert.equal(show.status, 0, show.stderr);
  assert.ok(show.stdout.includes(shown.fingerprint));
  assert.ok(!show.stdout.includes('whsec_cli_secret_value') && !set.stdout.includes('whsec_cli_secret_value'));
});

test('integrations: a bad configuration, an unknown provider or project and a missing flag fail with a message', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'cli.db');
  const { project } = JSON.parse((await runCli(['projects', 'create', 'p', '--json', '--db', db])).stdout);
  const config = path.join(dir, 'bad.json');
  fs.writeFileSync(config, JSON.stringify({ signing_secret: 'short' }));
  const bad = await runCli(['integrations', 'set', 'stripe', '--project', project.id, '--config', config, '--db', db]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /configuration is invalid/);
  assert.equal((await runCli(['integrations', 'show', 'stripe', '--project', project.id, '--db', db])).status, 1);
  assert.equal((await runCli(['integrations', 'show', 'paypal', '--project', project.id, '--db', db])).status, 1);
  assert.equal((await runCli(['integrations', 'show', 'stripe', '--project', 'nope', '--db', db])).status, 1);
  assert.equal((await runCli(['integrations', 'set', 'stripe', '--project', project.id, '--db', db])).status, 2);
});

test('integrations set google-play checks the key file and show never prints its private key', async (t) => {
  const dir = tempDir(t);
  const db = path.join(dir, 'cli.db');
  const { project } = JSON.parse((await runCli(['projects', 'create', 'p', '--json', '--db', db])).stdout);
  const pem = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const keyFile = { type: 'service_account', client_email: 'paywalld@example.iam.gserviceaccount.com', private_key: pem };
  const config = path.join(dir, 'google-play.json');
  const write = (serviceAccount: unknown) =>
    fs.writeFileSync(
      config,
      JSON.stringify({
        package_name: 'com.example.app',
        service_account_json: JSON.stringify(serviceAccount),
        pubsub_audience: 'https://paywalld.example.com/hooks/google-play',
        pubsub_service_account_email: 'push@example.iam.gserviceaccount.com',
      }),
    );
  write({ ...keyFile, private_key: 'not a key' });
  const bad = await runCli(['integrations', 'set', 'google-play', '--project', project.id, '--config', config, '--db', db]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /configuration is invalid/);
  write(keyFile);
  const set = await runCli(['integrations', 'set', 'google-play', '--project', project.id, '--config', config, '--json', '--db', db]);
  assert.equal(set.status, 0, set.stderr);
  const shown = JSON.parse(set.stdout);
  assert.equal(shown.webhook_path, `/hooks/google-play/${project.id}`);
  assert.equal(shown.service_account_email, keyFile.client_email);
  const show = await runCli(['integrations', 'show', 'google-play', '--project', project.id, '--db', db]);
  assert.equal(show.status, 0, show.stderr);
  assert.ok(show.stdout.includes(shown.fingerprint));
  const keyLine = pem.split('\n')[1]!;
  assert.ok(![set.stdout, set.stderr, show.stdout, show.stderr].some((out) => out.includes(keyLine)));
});
