import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerBlock } from '../../src/http/header-block.ts';

test('headers join into one block: the first name, then its value and the other lines', () => {
  assert.deepEqual(headerBlock({ 'Content-Type': 'application/json', ETag: '"x"', Vary: 'Accept-Language' }), {
    name: Buffer.from('Content-Type'),
    value: Buffer.from('application/json\r\nETag: "x"\r\nVary: Accept-Language'),
  });
  assert.deepEqual(headerBlock({ 'Content-Disposition': 'attachment; filename="é.ndjson"' })?.value, Buffer.from('attachment; filename="é.ndjson"'), 'UTF-8, as uWS writes strings');
  assert.equal(headerBlock({}), null);
});

test('a block is built once per headers object', () => {
  const headers = { A: '1', B: '2' };
  assert.equal(headerBlock(headers), headerBlock(headers));
  assert.notEqual(headerBlock(headers), headerBlock({ ...headers }));
});

test('a line break in a name or value is refused: it would inject headers', () => {
  assert.throws(() => headerBlock({ A: 'ok', B: 'x\r\nSet-Cookie: a=b' }), /contains a line break/);
  assert.throws(() => headerBlock({ 'A\nB': 'v' }), /contains a line break/);
});
