/** UserDictionary: dense ordinals per project, the same after a restore, with every kind of id. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserDictionary } from '../../src/analytics/users.ts';

test('ordinals are dense per project, in order of first sight, and stable across many table growths', () => {
  const users = new UserDictionary();
  const count = 200_000;
  for (let i = 0; i < count; i++) assert.equal(users.ordinal('proj_a', `user-${i}`), i);
  for (let i = 0; i < 50; i++) assert.equal(users.ordinal('proj_b', `user-${count - 1 - i}`), i);
  for (let i = count - 1; i >= 0; i--) assert.equal(users.ordinal('proj_a', `user-${i}`), i, `user-${i}`);
  assert.equal(users.count('proj_a'), count);
  assert.equal(users.count('proj_b'), 50);
  assert.equal(users.count('proj_c'), 0);
});

test('ids of every length and script are told apart and come back as they were given', () => {
  const ids = ['', 'a', 'A', 'ä', 'a\u0308', '用户', '😀', 'x'.repeat(256), 'é'.repeat(256), 'user\0one', 'user\0two', 'Ǆ', 'ǅ'];
  const users = new UserDictionary();
  for (const round of [1, 2]) for (const [i, id] of ids.entries()) assert.equal(users.ordinal('p', id), i, `${JSON.stringify(id)}, round ${round}`);
  assert.deepEqual(users.takeFresh(), [{ projectId: 'p', from: 0, to: ids.length }]);
  assert.deepEqual(users.ids('p', 0, ids.length), ids);
});

test('a lone surrogate is the same user as U+FFFD, as TextEncoder writes it (the edge refuses such ids: src/shared/text.ts)', () => {
  const users = new UserDictionary();
  assert.equal(users.ordinal('p', 'a\ud800'), 0);
  assert.equal(users.ordinal('p', 'a\ufffd'), 0);
  assert.equal(users.ordinal('p', 'a\udc00b'), 1);
});

test('takeFresh hands out each new range once; giveBack after a failed checkpoint hands it out again', () => {
  const users = new UserDictionary();
  users.ordinal('p', 'u0');
  users.ordinal('q', 'v0');
  assert.deepEqual(users.takeFresh(), [
    { projectId: 'p', from: 0, to: 1 },
    { projectId: 'q', from: 0, to: 1 },
  ]);
  assert.deepEqual(users.takeFresh(), []);
  users.ordinal('p', 'u1');
  const second = users.takeFresh();
  users.giveBack(second);
  users.ordinal('p', 'u2');
  assert.deepEqual(users.takeFresh(), [{ projectId: 'p', from: 1, to: 3 }]);
  assert.deepEqual(users.ids('p', 1, 3), ['u1', 'u2']);
});

test('restore takes stored entries in ordinal order and refuses a gap or a repeated id', () => {
  const users = new UserDictionary();
  users.restore('p', 0, 'u0');
  users.restore('p', 1, 'u1');
  assert.deepEqual(users.takeFresh(), [], 'restored entries are stored already');
  assert.equal(users.ordinal('p', 'u1'), 1);
  assert.equal(users.ordinal('p', 'u2'), 2);
  assert.throws(() => users.restore('q', 1, 'v1'), /gap or a repeated user at ordinal 0/);
  const again = new UserDictionary();
  again.restore('p', 0, 'u0');
  assert.throws(() => again.restore('p', 1, 'u0'), /gap or a repeated user at ordinal 1/);
});
