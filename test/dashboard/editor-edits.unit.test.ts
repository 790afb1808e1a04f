/**
 * The visual editor's document edits, without a browser: add, move, drop,
 * duplicate and delete nodes, texts written to the strings, edits while a
 * variant is chosen written as that variant's overrides, the split, and the
 * round trip (unknown fields and key order kept). Each result is checked by
 * the server's own validation where it must be a valid paywall.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getIn, type JsonObject, pretty } from '../../src/dashboard/ui/editor/json.ts';
import { addNode, deleteNode, dropNode, duplicateNode, moveNode, setFallback, setNodeText, setNodeValue } from '../../src/dashboard/ui/editor/node-edits.ts';
import { outlineRows, variantChanges } from '../../src/dashboard/ui/editor/outline-model.ts';
import { rootOf, setSlot, setString, stringsOf } from '../../src/dashboard/ui/editor/scope.ts';
import { addVariant, removeVariant, renameVariant, setControl, setVariantValue, weightSum } from '../../src/dashboard/ui/editor/split-edits.ts';
import { VOCABULARY } from '../../src/dashboard/ui/editor/vocabulary.ts';
import { validatePaywall } from '../../src/paywalls/document/index.ts';
import { TEMPLATES } from '../../src/templates/catalog.ts';

const template = (): JsonObject => structuredClone(TEMPLATES.find((t) => t.id === 'annual-vs-monthly')!.document) as unknown as JsonObject;

function assertValid(doc: JsonObject): void {
  const result = validatePaywall(doc, { productExists: () => true });
  assert.ok(result.ok, JSON.stringify(!result.ok && result.errors));
}

/** The path of the first node whose text key is `key`, in the tree the document shows. */
function pathOfKey(doc: JsonObject, key: string): (string | number)[] {
  const rows = outlineRows(doc.root, stringsOf(doc, null), 'en', 'en', new Set());
  const title = doc.strings as Record<string, Record<string, string>>;
  const row = rows.find((r) => r.name.endsWith(`: ${title.en![key]}`));
  assert.ok(row, `no node shows ${key}`);
  return [...row.path];
}

describe('adding nodes', () => {
  test('every type but package can be added to a stack and the paywall stays valid; a package goes into a package_group', () => {
    const types = VOCABULARY.map((node) => node.type).filter((type) => type !== 'package');
    for (const type of types) {
      // A second selection would be refused: the template has a package_group already, so a toggle or group goes into a plain paywall.
      const start =
        type === 'toggle' || type === 'package_group' ? { ...template(), root: { type: 'stack', props: { axis: 'vertical' }, children: [] } } : template();
      const added = addNode(start, null, [], type);
      assert.ok(added, type);
      assert.equal((getIn(added.doc.root, added.path) as JsonObject).type, type);
      if (type !== 'package_group') assertValid(added.doc);
    }
    const group = ['children', 0, 'children', 4];
    const added = addNode(setSlot(template(), null, 'weekly', 'pro_weekly'), null, group, 'package')!;
    assert.deepEqual(added.path, [...group, 'children', 2]);
    // It starts on the first slot, which a package of the group has already: the server says so until another is chosen.
    assert.equal(validatePaywall(added.doc, { productExists: () => true }).ok, false);
    assertValid(setNodeValue(added.doc, null, added.path, ['props', 'slot'], 'weekly'));
  });

  test("a new node's text is a fresh key of the default locale's strings", () => {
    const added = addNode(template(), null, ['children', 0], 'text')!;
    const node = getIn(added.doc.root, added.path) as JsonObject;
    assert.deepEqual(node.props, { text_key: 'text_1' });
    assert.equal(getIn(added.doc, ['strings', 'en', 'text_1']), 'New text');
    assert.equal(getIn(added.doc, ['strings', 'de', 'text_1']), undefined);
    const again = addNode(added.doc, null, ['children', 0], 'text')!;
    assert.deepEqual((getIn(again.doc.root, again.path) as JsonObject).props, { text_key: 'text_2' });
  });

  test('a leaf holds nothing: adding into a text is refused', () => {
    const doc = template();
    assert.equal(addNode(doc, null, pathOfKey(doc, 'title'), 'text'), null);
  });
});

describe('moving, duplicating and deleting', () => {
  test('move up and down among siblings, not past either end', () => {
    const doc = template();
    const title = pathOfKey(doc, 'title');
    const up = moveNode(doc, null, title, -1)!;
    assert.deepEqual(up.path, ['children', 0, 'children', 0]);
    assert.equal(getIn(up.doc.root, [...up.path, 'props', 'text_key']), 'title');
    assert.equal(moveNode(up.doc, null, up.path, -1), null);
    assert.equal(moveNode(doc, null, [], 1), null);
    const down = moveNode(up.doc, null, up.path, 1)!;
    assert.equal(pretty(down.doc), pretty(doc));
  });

  test('a drop moves a node into another list, counting places as before the move, never into itself', () => {
    const doc = template();
    const title = pathOfKey(doc, 'title');
    // Into the first feature row (children 0/3/0), before its icon.
    const dropped = dropNode(doc, null, title, ['children', 0, 'children', 3, 'children', 0], 0)!;
    assert.deepEqual(dropped.path, ['children', 0, 'children', 2, 'children', 0, 'children', 0]);
    assert.equal(getIn(dropped.doc.root, [...dropped.path, 'props', 'text_key']), 'title');
    assertValid(dropped.doc);
    // Later in its own list: index 5 before the move is 4 after it.
    const later = dropNode(doc, null, title, ['children', 0], 5)!;
    assert.deepEqual(later.path, ['children', 0, 'children', 4]);
    assert.equal(dropNode(doc, null, ['children', 0], ['children', 0, 'children', 3], 0), null);
  });

  test('a duplicate comes right after, with keys of its own holding the same texts in every locale', () => {
    const doc = template();
    const title = pathOfKey(doc, 'title');
    const copy = duplicateNode(doc, null, title)!;
    assert.deepEqual(copy.path, ['children', 0, 'children', 2]);
    const key = getIn(copy.doc.root, [...copy.path, 'props', 'text_key']) as string;
    assert.notEqual(key, 'title');
    assert.equal(getIn(copy.doc, ['strings', 'en', key]), 'Go Pro');
    assert.equal(getIn(copy.doc, ['strings', 'de', key]), 'Werde Pro');
    assertValid(copy.doc);
    // Editing the copy's text leaves the original's alone.
    const edited = setNodeText(copy.doc, null, copy.path, 'text_key', 'text', 'en', 'Copy');
    assert.equal(getIn(edited, ['strings', 'en', 'title']), 'Go Pro');
  });

  test('a duplicated node id gets a new one; delete removes the node and never the root', () => {
    let doc = template();
    const title = pathOfKey(doc, 'title');
    doc = setNodeValue(doc, null, title, ['id'], 'headline');
    const copy = duplicateNode(doc, null, title)!;
    assert.equal(getIn(copy.doc.root, [...copy.path, 'id']), 'headline_2');
    // The copy's keys stay in the strings (the Strings table lists them) until removed there.
    const deleted = deleteNode(copy.doc, null, copy.path);
    assert.equal(pretty(deleted.root!), pretty(doc.root!));
    assert.equal(deleteNode(doc, null, []), doc);
  });

  test('a fallback is added as a new node and removed', () => {
    const doc = template();
    const withFallback = setFallback(doc, null, ['children', 0], 'text');
    assert.equal(getIn(withFallback.root, ['children', 0, 'fallback', 'type']), 'text');
    assertValid(withFallback);
    assert.equal(getIn(setFallback(withFallback, null, ['children', 0], undefined).root, ['children', 0, 'fallback']), undefined);
  });
});

describe('texts live in the strings', () => {
  test('a literal text becomes a key in place: the default locale keeps the old text, the edited locale gets the new one', () => {
    const doc = {
      ...template(),
      root: { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'text', props: { text: 'Hello', style: { font_size: 20 } } }] },
    };
    const edited = setNodeText(doc, null, ['children', 0], 'text_key', 'text', 'de', 'Hallo');
    assert.deepEqual(getIn(edited.root, ['children', 0, 'props']), { text_key: 'text_1', style: { font_size: 20 } });
    assert.equal(getIn(edited, ['strings', 'en', 'text_1']), 'Hello');
    assert.equal(getIn(edited, ['strings', 'de', 'text_1']), 'Hallo');
  });

  test('a text in the default locale is written there; another locale gets its own translation', () => {
    const doc = template();
    const title = pathOfKey(doc, 'title');
    const en = setNodeText(doc, null, title, 'text_key', 'text', 'en', 'Go Pro today');
    assert.equal(getIn(en, ['strings', 'en', 'title']), 'Go Pro today');
    assert.equal(getIn(en, ['strings', 'de', 'title']), 'Werde Pro');
    assert.equal(getIn(setString(en, null, 'fr', 'title', 'Passez Pro'), ['strings', 'fr', 'title']), 'Passez Pro');
  });
});

describe('edits while a variant is chosen are its overrides', () => {
  const split = () => addVariant(setVariantValue(addVariant({ ...template(), variants: [] }, 'control', 50), 'control', 'weight', 50), 'b', 50);

  test("a text edit for b goes into b's strings; the paywall's stays, and the outline marks the node", () => {
    const doc = split();
    const title = pathOfKey(doc, 'title');
    const edited = setNodeText(doc, 'b', title, 'text_key', 'text', 'en', 'Try Pro');
    assert.equal(getIn(edited, ['strings', 'en', 'title']), 'Go Pro');
    assert.deepEqual(getIn(edited, ['variants', 1]), { id: 'b', weight: 50, strings: { en: { title: 'Try Pro' } } });
    assert.equal(stringsOf(edited, 'b').en!.title, 'Try Pro');
    assert.deepEqual(variantChanges(edited, edited.root).get(title.map((s) => `/${s}`).join('')), ['b']);
    assertValid(edited);
    // Set back to the paywall's text, it is no override any more.
    assert.deepEqual(getIn(setNodeText(edited, 'b', title, 'text_key', 'text', 'en', 'Go Pro'), ['variants', 1]), { id: 'b', weight: 50 });
  });

  test('a structural edit for b gives b its own root; the paywall and control keep theirs', () => {
    const doc = split();
    const moved = moveNode(doc, 'b', pathOfKey(doc, 'title'), -1)!;
    assert.equal(moved.doc.root, doc.root);
    assert.equal(getIn(rootOf(moved.doc, 'b'), ['children', 0, 'children', 0, 'props', 'text_key']), 'title');
    assert.ok(getIn(moved.doc, ['variants', 1, 'root']));
    assert.equal(getIn(moved.doc, ['variants', 0, 'root']), undefined);
    assert.ok(variantChanges(moved.doc, moved.doc.root).get('/children/0/children/0')?.includes('b'));
    assertValid(moved.doc);
  });

  test("a slot for b goes into b's slots; a property edit copies the root", () => {
    const doc = split();
    const slotted = setSlot(doc, 'b', 'annual', 'other_annual');
    assert.deepEqual(getIn(slotted, ['variants', 1, 'slots']), { annual: 'other_annual' });
    assert.equal(getIn(slotted, ['slots', 'annual']), 'pro_annual');
    const styled = setNodeValue(doc, 'b', pathOfKey(doc, 'title'), ['props', 'style', 'font_size'], 40);
    assert.equal(getIn(styled, ['root', 'children', 0, 'children', 1, 'props', 'style', 'font_size']), 28);
    assert.equal(getIn(styled, ['variants', 1, 'root', 'children', 0, 'children', 1, 'props', 'style', 'font_size']), 40);
  });
});

describe('the split', () => {
  test('weights, control, rename and remove carry into the audiences', () => {
    let doc: JsonObject = { ...template(), variants: [{ id: 'control', weight: 100 }] };
    doc = addVariant(doc, 'b');
    doc = setVariantValue(setVariantValue(doc, 'control', 'weight', 50), 'b', 'weight', 50);
    assert.equal(weightSum(doc), 100);
    doc = { ...doc, audiences: [{ id: 'de', when: { country: 'DE' }, weights: { control: 1, b: 3 } }] };
    doc = renameVariant(doc, 'b', 'annual_first');
    assert.deepEqual(getIn(doc, ['audiences', 0, 'weights']), { control: 1, annual_first: 3 });
    doc = setControl(doc, 'annual_first');
    assert.deepEqual(doc.variants, [
      { id: 'control', weight: 50 },
      { id: 'annual_first', weight: 50, control: true },
    ]);
    assertValid(doc);
    doc = removeVariant(doc, 'annual_first');
    assert.deepEqual(getIn(doc, ['audiences', 0, 'weights']), { control: 1 });
  });
});

describe('the round trip', () => {
  test('fields the editor does not know survive every edit, and keys keep their order', () => {
    const doc: JsonObject = {
      future_field: { anything: [1, 2] },
      ...template(),
      variants: [{ id: 'control', weight: 100, metadata: { x: 1 }, next_year: true }],
    };
    const title = pathOfKey(doc, 'title');
    let edited = setNodeText(doc, null, title, 'text_key', 'text', 'en', 'New');
    edited = addVariant(edited, 'b');
    edited = setNodeValue(edited, null, title, ['props', 'style', 'color'], '#FF0000');
    assert.deepEqual(Object.keys(edited), Object.keys(doc));
    assert.deepEqual(edited.future_field, { anything: [1, 2] });
    assert.deepEqual(getIn(edited, ['variants', 0]), { id: 'control', weight: 100, metadata: { x: 1 }, next_year: true });
    assert.deepEqual(Object.keys(getIn(edited.root, [...title, 'props', 'style']) as JsonObject), ['font_size', 'font_weight', 'color', 'alignment']);
    // What was not touched is the very same object.
    assert.equal(getIn(edited, ['theme']), doc.theme);
    assert.equal(getIn(edited.root, ['children', 0, 'children', 4]), getIn(doc.root, ['children', 0, 'children', 4]));
  });
});
