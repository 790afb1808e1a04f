/** Which addresses a webhook may not reach (src/webhooks/addresses.ts), IPv4 and IPv6, and a name resolved before it is checked. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refusedKind, resolveChecked } from '../../src/webhooks/addresses.ts';

test('loopback, private, link-local, metadata and the other special ranges are refused; public addresses are not', () => {
  const refused: [string, string][] = [
    ['127.0.0.1', 'a loopback'],
    ['127.9.9.9', 'a loopback'],
    ['10.1.2.3', 'a private'],
    ['172.16.0.1', 'a private'],
    ['172.31.255.255', 'a private'],
    ['192.168.1.1', 'a private'],
    ['169.254.169.254', 'a cloud metadata'],
    ['169.254.1.1', 'a link-local'],
    ['100.100.100.200', 'a shared (carrier-grade NAT)'],
    ['0.0.0.0', 'an unspecified ("this network")'],
    ['224.0.0.1', 'a multicast'],
    ['255.255.255.255', 'a reserved'],
    ['::1', 'a loopback'],
    ['::', 'an unspecified'],
    ['fc00::1', 'a private (unique local)'],
    ['fd12:3456::1', 'a private (unique local)'],
    ['fd00:ec2::254', 'a cloud metadata'],
    ['fe80::1', 'a link-local'],
    ['ff02::1', 'a multicast'],
    // An IPv4 address carried in IPv6 reaches it as surely.
    ['::ffff:127.0.0.1', 'a loopback'],
    ['::ffff:a9fe:a9fe', 'a cloud metadata'],
    ['64:ff9b::a00:1', 'a private'],
    ['2002:c0a8:101::1', 'a private'],
  ];
  for (const [address, kind] of refused) assert.equal(refusedKind(address), kind, address);
  for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1']) {
    assert.equal(refusedKind(address), undefined, address);
  }
});

test('a name is resolved, and refused when any of its addresses is; --webhooks-allow-private lifts it', async () => {
  await assert.rejects(
    resolveChecked('localhost', false),
    /^Error: localhost is a loopback address \((127\.0\.0\.1|::1)\): not allowed without --webhooks-allow-private$/,
  );
  await assert.rejects(resolveChecked('[::1]', false), /^Error: ::1 is a loopback address: not allowed/);
  await assert.rejects(resolveChecked('10.0.0.1', false), /^Error: 10\.0\.0\.1 is a private address/);
  assert.deepEqual(await resolveChecked('127.0.0.1', true), [{ address: '127.0.0.1', family: 4 }]);
  assert.deepEqual(await resolveChecked('[2606:4700::1111]', false), [{ address: '2606:4700::1111', family: 6 }]);
  assert.ok((await resolveChecked('localhost', true)).some(({ address }) => address === '127.0.0.1'));
  await assert.rejects(resolveChecked('nothing.invalid', true), /^Error: nothing\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)$/);
});
