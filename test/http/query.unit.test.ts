import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../../src/http/query.ts';

const reference = (raw: string) => [...new URLSearchParams(raw)];

test('plain, encoded, empty and repeated parameters read as URLSearchParams reads them', () => {
  for (const raw of [
    '',
    'paywallId=onboarding&userId=u-1&platform=ios',
    'a=1&a=2&b',
    'a=&=b&&&c=%20d+e',
    'name=J%C3%BCrgen&city=M%C3%BCnchen',
    'attr.plan=pro&attr.__proto__=x',
    'q=%zz%f&r=%ff%fe&s=%C3%28&t=%E2%82',
    'emoji=%F0%9F%98%80&raw=😀&mixed=%41%42c',
    'eq=a=b=c',
  ]) {
    assert.deepEqual(parseQuery(raw), reference(raw), raw);
  }
});

// Node 20's URLSearchParams mis-decodes some mixes of escapes, `+` and non-ASCII text (it
// returns U+0000 characters), so random strings are checked against decodeURIComponent,
// which is exact when every escape is whole UTF-8; the fixed cases above cover broken ones.
test('random strings of escapes, separators and text decode as decodeURIComponent does', () => {
  const alphabet = ['a', 'Z', '0', '+', '=', '&', '%41', '%2B', '%26', '%3D', '%25', '%C3%A9', '%F0%9F%98%80', 'é', '😀', ' ', '.'];
  const decode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
  const expected = (raw: string) =>
    raw
      .split('&')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const eq = pair.indexOf('=');
        return eq === -1 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
      });
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let n = 0; n < 5000; n++) {
    const raw = Array.from({ length: Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    assert.deepEqual(parseQuery(raw), expected(raw), raw);
  }
});
