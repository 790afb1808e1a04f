/** dist/render as `npm run build` writes it: small, one ES module with no imports, declarations that type an app with the client's answer. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { tempDir } from '../helpers/temp.ts';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');
const DIST_RENDER = path.join(DIST, 'render', 'index.js');
const TSC = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** The budget for the renderer, gzipped. */
const MAX_GZIPPED_BYTES = 20 * 1024;

test('dist/render/index.js is one ES module with no imports, under 20 KB gzipped', async () => {
  const code = fs.readFileSync(DIST_RENDER);
  const gzipped = zlib.gzipSync(code, { level: 9 }).length;
  assert.ok(gzipped < MAX_GZIPPED_BYTES, `${gzipped} bytes gzipped`);
  assert.doesNotMatch(code.toString(), /^\s*import\s|\brequire\(|\bimport\(/m);
  const module = await import(DIST_RENDER);
  assert.deepEqual(Object.keys(module).sort(), ['layoutModel', 'renderPaywall']);
  const manifest = JSON.parse(fs.readFileSync(path.join(DIST, 'render', 'package.json'), 'utf8'));
  assert.deepEqual(
    { name: manifest.name, type: manifest.type, exports: manifest.exports },
    { name: '@paywalld/render', type: 'module', exports: { '.': { types: './index.d.ts', default: './index.js' } } },
  );
});

test("the declarations type an app that draws the client's answer, and refuse a wrong price", (t) => {
  const dir = tempDir(t);
  // The app installs both packages as npm would from their folders, and imports them by name.
  const modules = path.join(dir, 'node_modules', '@paywalld');
  fs.mkdirSync(modules, { recursive: true });
  fs.cpSync(path.join(DIST, 'render'), path.join(modules, 'render'), { recursive: true });
  fs.cpSync(path.join(DIST, 'client'), path.join(modules, 'client'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['app.ts'],
    }),
  );
  const typecheck = (source: string) => {
    fs.writeFileSync(path.join(dir, 'app.ts'), source);
    return spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
  };
  const ok = typecheck(`import { createClient } from '@paywalld/client';
import { layoutModel, renderPaywall, type PaywallAction } from '@paywalld/render';
const client = createClient({ baseUrl: 'https://paywall.example.com', apiKey: 'pwk_sdk_x' });
const { paywall } = await client.getPaywall('onboarding');
const prices = { pro_annual: { amount: 49.99, currency: 'USD', period: 'P1Y', trial: 'P7D', eligible_for_intro: true } };
const view = renderPaywall(document.body, paywall, { prices, onAction: (action: PaywallAction) => console.log(action.type, action.store_product_id) });
view.update({ prices: {} });
view.update(paywall);
view.destroy();
const model = layoutModel(paywall, prices);
const visible: boolean | undefined = model.root?.visible;
export { visible };
`);
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const wrong = typecheck(
    `import { renderPaywall } from '@paywalld/render';\nrenderPaywall(document.body, { locale: 'en', root: null, product_slots: [] }, { prices: { p: { amount: '1', currency: 'USD' } } });\n`,
  );
  assert.notEqual(wrong.status, 0);
  assert.match(wrong.stdout, /app\.ts.*error TS2322/);
});
