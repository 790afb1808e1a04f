/**
 * A new node of a type, built from the vocabulary: each required prop gets a
 * value of its kind (the first option of an enum, the low end of a range, a
 * slot of the paywall, a fresh string key with a text), and a node with a
 * label gets its text as a string key, so translations and variant
 * overrides work on it. The tables below are data for kinds whose neutral
 * value the vocabulary cannot know (a URL, a text); a new type needs none.
 */
import type { JsonObject } from './json.ts';
import type { NodeDescriptor, PropDescriptor } from './vocabulary.ts';

/** The first text of a new node, by type. */
const FIRST_TEXT: Readonly<Record<string, string>> = {
  button: 'Button',
  purchase_button: 'Continue',
  link: 'Link',
  toggle: 'Free trial',
  countdown: 'Offer ends in {{countdown}}',
};

/** A grey picture that needs no network, for a new image. */
const PLACEHOLDER_IMAGE =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCA0IDMiPjxyZWN0IHdpZHRoPSI0IiBoZWlnaHQ9IjMiIGZpbGw9IiNkNGQ0ZDgiLz48L3N2Zz4=';

/** URLs a new node starts with, by `type.prop`; any other required URL starts as https://example.com/. */
const FIRST_URL: Readonly<Record<string, string>> = {
  'image.url': PLACEHOLDER_IMAGE,
  'video.url': 'https://example.com/video.mp4',
  'video.poster_url': 'https://example.com/poster.jpg',
};

/** Props a type needs beyond its required ones to be valid (a countdown needs an end). */
const EXTRA_PROPS: Readonly<Record<string, JsonObject>> = { countdown: { duration_seconds: 3600 } };

/** Children a type needs to be valid (a carousel needs a page). */
const FIRST_CHILDREN: Readonly<Record<string, JsonObject[]>> = { pages: [{ type: 'stack', props: { axis: 'vertical' }, children: [] }] };

/** What a new node needs from its document: its slots, and a fresh string key for a text. */
interface NewNodeContext {
  slots: readonly string[];
  freshKey: (type: string) => string;
}

interface NewNode {
  node: JsonObject;
  /** String keys the node names, with their first text (for the default locale). */
  texts: Record<string, string>;
}

function firstValue(type: string, prop: PropDescriptor, context: NewNodeContext, texts: Record<string, string>, slot: number): JsonObject[string] | undefined {
  switch (prop.kind) {
    case 'enum':
      return prop.options?.[0];
    case 'boolean':
      return false;
    case 'number':
    case 'size':
      return prop.min ?? 0;
    case 'slot':
      // Two slot props (a toggle's on and off) start on two slots.
      return context.slots[slot % Math.max(1, context.slots.length)] ?? 'selected';
    case 'text_key': {
      const key = context.freshKey(type);
      texts[key] = FIRST_TEXT[type] ?? 'New text';
      return key;
    }
    case 'url':
      return FIRST_URL[`${type}.${prop.name}`] ?? 'https://example.com/';
    case 'icon_name':
      return 'star';
    case 'text':
      return FIRST_TEXT[type] ?? 'New text';
    default:
      return undefined;
  }
}

export function newNode(descriptor: NodeDescriptor, context: NewNodeContext): NewNode {
  const texts: Record<string, string> = {};
  const props: JsonObject = {};
  const names = new Set(descriptor.props.map((prop) => prop.name));
  let slots = 0;
  for (const prop of descriptor.props) {
    // A label (text or text_key, neither required alone) is written as a key.
    const label = prop.name === 'text_key' && names.has('text') && !prop.required;
    if (!prop.required && !label) continue;
    const value = firstValue(descriptor.type, prop, context, texts, prop.kind === 'slot' ? slots++ : 0);
    if (value !== undefined) props[prop.name] = value;
  }
  Object.assign(props, EXTRA_PROPS[descriptor.type]);
  const node: JsonObject = { type: descriptor.type, props };
  if (descriptor.children !== null) node.children = structuredClone(FIRST_CHILDREN[descriptor.type] ?? []);
  return { node, texts };
}

/** The types a node may hold as children: its only type, else every type no other type keeps to itself (a package lives in a package_group). */
export function childTypes(descriptor: NodeDescriptor | undefined, vocabulary: readonly NodeDescriptor[]): string[] {
  if (!descriptor || descriptor.children === null) return [];
  if (descriptor.children.only) return [descriptor.children.only];
  const kept = new Set(vocabulary.flatMap((node) => (node.children?.only ? [node.children.only] : [])));
  return vocabulary.filter((node) => !kept.has(node.type)).map((node) => node.type);
}
