/** The typed tree: a served paywall's root walks as the ComponentNode union says (labels resolved to text, slot nodes with their product). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as Client from '../../client/index.ts';
import { loadClient, seededServer } from '../helpers/client.ts';

const TYPES = new Set(['stack', 'text', 'image', 'button', 'purchase_button', 'product', 'spacer', 'icon', 'link']);

function walk(node: Client.ComponentNode, seen: Set<string>): void {
  assert.ok(TYPES.has(node.type), node.type);
  seen.add(node.type);
  switch (node.type) {
    case 'stack':
      for (const child of node.children ?? []) walk(child, seen);
      break;
    case 'text':
    case 'button':
    case 'link':
      assert.equal(typeof node.props.text, 'string');
      assert.ok(!('text_key' in node.props));
      break;
    case 'purchase_button':
    case 'product':
      assert.equal(typeof node.props.slot, 'string');
      assert.ok(node.product === null || typeof node.product.id === 'string');
      break;
    default:
      break;
  }
  if (node.fallback) walk(node.fallback, seen);
}

test("a served paywall's root is a typed ComponentNode tree", async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, userId: 'u-tree' });
  const { paywall } = await client.getPaywall('onboarding', { locale: 'de' });
  assert.ok(paywall.root);
  const seen = new Set<string>();
  walk(paywall.root, seen);
  assert.ok(seen.has('stack') && seen.has('text'), [...seen].join());
  await client.close();
});
