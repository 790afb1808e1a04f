import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { DIST_CLIENT } from '../helpers/client.ts';
import { tempDir } from '../helpers/temp.ts';

const TSC = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** Type-checks an app's file against dist/client/index.d.ts alone, as an app's own strict tsconfig would. */
function typecheckApp(dir: string, source: string) {
  fs.writeFileSync(path.join(dir, 'app.ts'), source);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['app.ts'],
    }),
  );
  return spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
}

test('dist/client is one ES module with no imports, and its declarations type an app on their own', async (t) => {
  const code = fs.readFileSync(DIST_CLIENT, 'utf8');
  assert.doesNotMatch(code, /^\s*import\s|\brequire\(|\bimport\(/m);
  const module = await import(DIST_CLIENT);
  assert.deepEqual(Object.keys(module).sort(), [
    'APP_ACCOUNT_TOKEN_NAMESPACE',
    'PaywalldError',
    'appAccountToken',
    'createClient',
    'customEventType',
    'memoryStorage',
    'obfuscatedAccountId',
  ]);

  const dir = tempDir(t);
  const entry = JSON.stringify(DIST_CLIENT);
  const ok = typecheckApp(
    dir,
    `import { createClient, type PaywallResult, type FallbackBundle } from ${entry};
declare const bundle: FallbackBundle;
const client = createClient({ baseUrl: 'https://paywall.example.com', apiKey: 'pwk_sdk_x', fallback: bundle, storage: localStorage, platform: 'ios' });
const result: PaywallResult = await client.getPaywall('onboarding', { userId: 'u', locale: 'de', attributes: { plan: 'free' } });
const slot: string | null = result.paywall.product_slots[0]!.store_product_id;
const variant: string = result.paywall.variant.id;
const event = client.track({ type: 'screen_impression', paywall_id: 'onboarding', properties: { a: 1 } });
const id: string = event.id;
await client.close();
export { slot, variant, id };
`,
  );
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);

  const wrong = typecheckApp(dir, `import { createClient } from ${entry};\ncreateClient({ baseUrl: 'x', apiKey: 'y' }).track({ type: 1, paywall_id: 'p' });\n`);
  assert.notEqual(wrong.status, 0);
  assert.match(wrong.stdout, /app\.ts.*error TS2322/);
});
