/** Arrays sent as parameters without the driver's fetched types (src/db/postgres/array-parameters.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrayLiteral } from '../../src/db/postgres/array-parameters.ts';
import { openPool } from '../../src/db/postgres/connection.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

test('an array literal quotes each element, escapes " and \\, and writes null as NULL', () => {
  assert.equal(arrayLiteral([]), '{}');
  assert.equal(arrayLiteral(['a', null, 'b"c\\d', 'x,y}']), '{"a",NULL,"b\\"c\\\\d","x,y}"}');
  assert.equal(arrayLiteral([1, -2.5, 1e21]), '{"1","-2.5","1e+21"}');
});

test('text, int4, int8 and float8 arrays reach PostgreSQL element for element, on a pool that fetches no types', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const sql = openPool(url, { size: 1 });
  t.after(() => sql.end());
  const texts = ['plain', '', 'quote " and backslash \\', 'comma, {brace}', 'NULL', 'üñí 🎉', null];
  const [row] = await sql<{ texts: string; ints: string; bigs: string; floats: string }[]>`
    SELECT array_to_json(${texts}::text[])::text AS texts, array_to_json(${[1, -2, null]}::int4[])::text AS ints,
           array_to_json(${[1_795_710_467_695, 0]}::int8[])::text AS bigs, array_to_json(${[0.1, 1e300, -3]}::float8[])::text AS floats`;
  assert.deepEqual(JSON.parse(row!.texts), texts);
  assert.deepEqual(JSON.parse(row!.ints), [1, -2, null]);
  assert.deepEqual(JSON.parse(row!.bigs), [1_795_710_467_695, 0]);
  assert.deepEqual(JSON.parse(row!.floats), [0.1, 1e300, -3]);
  const [found] = await sql<{ n: number }[]>`SELECT count(*)::int4 AS n FROM unnest(${['a', 'b"']}::text[]) AS x WHERE x = ANY(${['b"', 'c']})`;
  assert.equal(found!.n, 1);
});
