/**
 * What the visual editor shows, without a browser: the audience builder's
 * reading of conditions (exactly what the JSON holds, or read-only), undo
 * and redo with typing grouped, and the outline's rows and names.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromCondition, type Group, toCondition, valueFrom } from '../../src/dashboard/ui/editor/condition-model.ts';
import type { JsonObject } from '../../src/dashboard/ui/editor/json.ts';
import { outlineRows, pathFromId, pathId } from '../../src/dashboard/ui/editor/outline-model.ts';
import { placeOf } from '../../src/dashboard/ui/editor/reveal.ts';
import { stringsOf } from '../../src/dashboard/ui/editor/scope.ts';
import { record, redo, startHistory, undo } from '../../src/dashboard/ui/editor/undo-stack.ts';
import { validateCondition } from '../../src/paywalls/targeting/condition.ts';
import { TEMPLATES } from '../../src/templates/catalog.ts';

describe('the audience builder', () => {
  const editable: JsonObject[] = [
    {},
    { country: 'DE' },
    { platform: 'ios', country: { $in: ['DE', 'AT'] } },
    { appVersion: { $vgte: '2.0.0' }, 'attr.plan': { $ne: 'pro' } },
    { $or: [{ country: 'DE' }, { locale: { $nin: ['de', 'de-AT'] } }] },
    { $and: [{ country: 'DE' }, { country: { $ne: 'AT' } }] },
    { $or: [{ platform: 'ios', country: 'US' }, { $and: [{ userId: { $exists: true } }] }] },
  ];
  for (const condition of editable) {
    test(`${JSON.stringify(condition)} is shown and written back unchanged`, () => {
      const group = fromCondition(condition);
      assert.ok(group);
      assert.equal(JSON.stringify(toCondition(group)), JSON.stringify(condition));
    });
  }

  const readOnly: JsonObject[] = [
    { $not: { country: 'DE' } },
    { country: { $in: ['DE'], $ne: 'AT' } },
    { 'attr.tags': { $elemMatch: { $eq: 'vip' } } },
    { country: ['DE'] },
    { $or: [{ country: 'DE' }], platform: 'ios' },
    { $nor: [{ country: 'DE' }] },
  ];
  for (const condition of readOnly) {
    test(`${JSON.stringify(condition)} cannot be shown: it is read-only, never rewritten`, () => {
      assert.equal(fromCondition(condition), null);
    });
  }

  test('what the builder makes is the condition the JSON holds, and the server accepts it', () => {
    const group: Group = {
      kind: 'group',
      mode: 'all',
      explicit: false,
      items: [
        { kind: 'rule', attribute: 'country', operator: '$in', value: valueFrom('$in', 'DE, AT,') },
        { kind: 'rule', attribute: 'appVersion', operator: '$vgte', value: valueFrom('$vgte', '3.1') },
      ],
    };
    assert.deepEqual(toCondition(group), { country: { $in: ['DE', 'AT'] }, appVersion: { $vgte: '3.1' } });
    assert.deepEqual(validateCondition(toCondition(group)), []);
    // The same attribute twice cannot be one object: it is written as $and.
    const twice: Group = { ...group, items: [group.items[0]!, { kind: 'rule', attribute: 'country', operator: '$ne', value: 'FR' }] };
    assert.deepEqual(toCondition(twice), { $and: [{ country: { $in: ['DE', 'AT'] } }, { country: { $ne: 'FR' } }] });
    assert.deepEqual(toCondition({ ...group, mode: 'any' }), { $or: [{ country: { $in: ['DE', 'AT'] } }, { appVersion: { $vgte: '3.1' } }] });
    assert.equal(valueFrom('$gt', '5'), 5);
    assert.equal(valueFrom('$exists', 'false'), false);
  });
});

describe('undo and redo', () => {
  test('each edit is a step; typing in one field within a moment is one step; a new edit drops what was undone', () => {
    let history = startHistory('a');
    history = record(history, 'ab', 'title', 1000);
    history = record(history, 'abc', 'title', 1500);
    history = record(history, 'abcd', 'subtitle', 1600);
    assert.deepEqual(history.past, ['a', 'abc']);
    history = undo(history);
    assert.equal(history.present, 'abc');
    history = undo(history);
    assert.equal(history.present, 'a');
    assert.equal(undo(history), history);
    history = redo(history);
    assert.equal(history.present, 'abc');
    history = record(history, 'x', null, 1700);
    assert.deepEqual(history.future, []);
    assert.equal(redo(history), history);
    // The same field after a pause is a step of its own.
    const paused = record(record(startHistory('a'), 'b', 'title', 0), 'c', 'title', 5000);
    assert.deepEqual(paused.past, ['a', 'b']);
  });
});

describe('the outline', () => {
  test('rows name each node by its type and its text in the locale shown, with levels, and hide what is collapsed', () => {
    const doc = structuredClone(TEMPLATES.find((t) => t.id === 'annual-vs-monthly')!.document) as unknown as JsonObject;
    const rows = outlineRows(doc.root, stringsOf(doc, null), 'de', 'en', new Set());
    assert.equal(rows[0]!.name, 'stack');
    assert.ok(rows.some((row) => row.name === 'text: Werde Pro' && row.level === 3));
    assert.ok(rows.some((row) => row.name === 'package: annual'));
    assert.ok(rows.some((row) => row.name === 'stack (fallback)' && row.fallback));
    assert.ok(rows.some((row) => row.name === 'product: annual'));
    const collapsed = outlineRows(doc.root, stringsOf(doc, null), 'de', 'en', new Set(['/children/0']));
    assert.equal(collapsed.length, 2);
    for (const row of rows) assert.deepEqual(pathFromId(pathId(row.path)), row.path);
  });
});

describe('where a problem is shown', () => {
  test("a pointer into a tree selects its deepest node, in the variant's own tree when it is one; others open their tab", () => {
    assert.deepEqual(placeOf('/root/children/0/children/3/props/style/color'), { tab: 'design', node: ['children', 0, 'children', 3] });
    assert.deepEqual(placeOf('/variants/1/root/children/2/fallback/props'), { tab: 'design', variant: 1, node: ['children', 2, 'fallback'] });
    assert.deepEqual(placeOf('/root'), { tab: 'design', node: [] });
    assert.deepEqual(placeOf('/strings/de/title'), { tab: 'strings' });
    assert.deepEqual(placeOf('/variants/1/weight'), { tab: 'variants' });
    assert.deepEqual(placeOf('/audiences/0/when/country'), { tab: 'audiences' });
    assert.deepEqual(placeOf('/theme/colors/brand/dark'), { tab: 'theme' });
    assert.deepEqual(placeOf('/slots/annual'), { tab: 'slots' });
    assert.deepEqual(placeOf('/name'), { tab: 'json' });
  });
});
