/** What the resolve tests of this folder share: the variants a list of users gets through a real server. */
import assert from 'node:assert/strict';
import type { Json } from '../helpers/json.ts';

/** The variant each of `users` gets, resolved through `url` with `key`, 50 requests at a time. */
export async function assignments(url: string, key: string, paywallId: string, users: readonly string[]): Promise<string[]> {
  const out: string[] = new Array(users.length);
  let next = 0;
  const worker = async () => {
    while (next < users.length) {
      const index = next++;
      const response = await fetch(`${url}/api/sdk/config?${new URLSearchParams({ paywallId, userId: users[index]! })}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.status, 200);
      out[index] = ((await response.json()) as Json).variant.id;
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return out;
}
