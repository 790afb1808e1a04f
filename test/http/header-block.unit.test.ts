import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerBlock, joinedHeaderBlock } from '../../src/http/header-block.ts';

test('headers join into one block: the first name, then its value and the other lines', () => {
  assert.deepEqual(headerBlock({ 'Content-Type': 'application/json', ETag: '"x"', Vary: 'Accept-Language' }), {
    name: Buffer.from('Content-Type'),
    value: Buffer.from('application/json\r\nETag: "x"\r\nVary: Accept-Language'),
  });
  assert.deepEqual(
    headerBlock({ 'Content-Disposition': 'attachment; filename="é.ndjson"' })?.value,
    Buffer.from('attachment; filename="é.ndjson"'),
    'UTF-8, as uWS writes strings',
  );
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

test('two sets of headers join into one block, each line kept, once per pair', () => {
  const cors = { 'Access-Control-Allow-Origin': 'https://a.example', Vary: 'Origin' };
  const own = { 'Content-Type': 'application/json', Vary: 'Accept-Language' };
  const block = joinedHeaderBlock(cors, own);
  assert.deepEqual(block, {
    name: Buffer.from('Access-Control-Allow-Origin'),
    value: Buffer.from('https://a.example\r\nVary: Origin\r\nContent-Type: application/json\r\nVary: Accept-Language'),
  });
  assert.equal(joinedHeaderBlock(cors, own), block);
  assert.deepEqual(joinedHeaderBlock(undefined, own), headerBlock(own));
  assert.deepEqual(joinedHeaderBlock(cors, undefined), headerBlock(cors));
  assert.deepEqual(joinedHeaderBlock({}, own), headerBlock(own));
  assert.equal(joinedHeaderBlock(undefined, undefined), null);
  assert.throws(() => joinedHeaderBlock(cors, { A: 'x\ny' }), /contains a line break/);
});
