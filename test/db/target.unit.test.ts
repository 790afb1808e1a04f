/** A PostgreSQL URL's password never shows: in the user part or as a parameter, however it is spelled. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeTarget, isOtherUrl, isPostgresUrl, redactUrl, redactUrls, targetOf } from '../../src/db/target.ts';

test('postgres:// and postgresql:// name PostgreSQL; file paths, :memory: and Windows paths stay SQLite files', () => {
  for (const url of ['postgres://h/d', 'postgresql://u@h/d', 'PostgreSQL://h']) assert.deepEqual(targetOf(url), { kind: 'postgres', url });
  for (const file of ['data/paywalld.db', ':memory:', '/var/lib/p.db', 'C:\\data\\p.db', 'postgres.db', 'postgres:/x']) {
    assert.deepEqual(targetOf(file), { kind: 'sqlite', file });
    assert.equal(isOtherUrl(file), false);
  }
  assert.equal(isPostgresUrl('mysql://h/d'), false);
  assert.equal(isOtherUrl('mysql://h/d'), true);
  assert.equal(isOtherUrl('postgress://h/d'), true);
});

test('redactUrl hides the password of the user part and of password parameters, or drops them', () => {
  const cases: [url: string, redacted: string, dropped: string][] = [
    ['postgres://u:s3cret@h:5432/db', 'postgres://u:***@h:5432/db', 'postgres://u@h:5432/db'],
    ['postgres://u@h/db', 'postgres://u@h/db', 'postgres://u@h/db'],
    ['postgres://h/db', 'postgres://h/db', 'postgres://h/db'],
    ['postgres://u:s3@c:r/t@h/db', 'postgres://u:***@h/db', 'postgres://u@h/db'],
    ['postgres://u:p@h1:1,h2:2/db', 'postgres://u:***@h1:1,h2:2/db', 'postgres://u@h1:1,h2:2/db'],
    ['postgres://h/db?sslmode=require&password=s3cret', 'postgres://h/db?sslmode=require&password=***', 'postgres://h/db?sslmode=require'],
    ['postgres://h/db?PASSWORD=s3cret&sslpassword=k3y', 'postgres://h/db?PASSWORD=***&sslpassword=***', 'postgres://h/db'],
    [
      'postgresql://u:s3cret@h/db?password=s3cret&sslmode=verify-full',
      'postgresql://u:***@h/db?password=***&sslmode=verify-full',
      'postgresql://u@h/db?sslmode=verify-full',
    ],
  ];
  for (const [url, redacted, dropped] of cases) {
    assert.equal(redactUrl(url), redacted, url);
    assert.equal(redactUrl(url, ''), dropped, url);
  }
});

test('redactUrls redacts every PostgreSQL URL inside a message; describeTarget names a target without its password', () => {
  assert.equal(
    redactUrls('cannot reach postgres://a:b@h/d (then postgresql://c:d@h/e): refused'),
    'cannot reach postgres://a:***@h/d (then postgresql://c:***@h/e): refused',
  );
  assert.equal(redactUrls('(postgres://a:b@h/d?password=x); or postgres://a:b@h/d.'), '(postgres://a:***@h/d?password=***); or postgres://a:***@h/d.');
  assert.equal(describeTarget({ kind: 'postgres', url: 'postgres://a:b@h/d' }), 'postgres://a:***@h/d');
  assert.equal(redactUrls('(postgres://a:b@h/d?password=x); or postgres://a:b@h/d.'), '(postgres://a:***@h/d?password=***); or postgres://a:***@h/d.');
  assert.equal(describeTarget({ kind: 'sqlite', file: 'x.db' }), 'x.db');
});
