/**
 * The node vocabulary as data, read from the schemas that validate it: each
 * node type with what it is for, its props (each with its kind, whether it
 * is required, an enum's options, a number's range) and which children it
 * holds. An editor builds its forms from this, so a prop added to a schema
 * shows up in the editor without a second list to keep in step.
 */
import * as v from 'valibot';
import { COMPONENT_TYPES, ComponentNodeSchema, type ComponentType, NEWER_TYPES } from './components.ts';
import type { PropKind } from './props.ts';
import { MAX_PACKAGES, MAX_PAGES } from './structure-rules.ts';

interface PropDescriptor {
  name: string;
  kind: PropKind;
  required: boolean;
  /** enum: the values allowed. */
  options?: readonly string[];
  /** number and size: the range allowed, and whether only whole numbers are. */
  min?: number;
  /** true: `min` itself is not allowed (an aspect ratio above 0). */
  min_exclusive?: boolean;
  max?: number;
  integer?: boolean;
  /** style: its own props. */
  fields?: PropDescriptor[];
}

interface NodeDescriptor {
  type: ComponentType;
  description: string;
  props: PropDescriptor[];
  /** null: the type holds no children; else which type they must be (any when absent) and how many at most. */
  children: { only?: ComponentType; max?: number } | null;
  /** Apps before this vocabulary do not know the type: it wants a fallback. */
  needs_fallback: boolean;
}

type Walked = v.GenericSchema & {
  type: string;
  entries?: Record<string, Walked>;
  wrapped?: Walked;
  options?: readonly string[];
  pipe?: readonly { type: string; kind: string; requirement?: unknown }[];
};

/** What structure-rules.ts allows beyond "any node" in the children of a type. */
const CHILD_RULES: Partial<Record<ComponentType, { only?: ComponentType; max?: number }>> = {
  package_group: { only: 'package', max: MAX_PACKAGES },
  pages: { max: MAX_PAGES },
};

function inferredKind(schema: Walked): PropKind {
  const tagged = (v.getMetadata(schema) as { 'x-kind'?: PropKind })['x-kind'];
  if (tagged) return tagged;
  if (schema.type === 'picklist') return 'enum';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'number') return 'number';
  throw new Error(`a ${schema.type} prop without a kind: tag it with kind() in props.ts`);
}

function describeProp(name: string, entry: Walked): PropDescriptor {
  const required = entry.type !== 'optional';
  const schema = required ? entry : entry.wrapped!;
  const descriptor: PropDescriptor = { name, kind: inferredKind(schema), required };
  if (schema.type === 'picklist') descriptor.options = schema.options;
  for (const action of schema.pipe ?? []) {
    if (action.type === 'min_value') descriptor.min = action.requirement as number;
    if (action.type === 'gt_value') Object.assign(descriptor, { min: action.requirement as number, min_exclusive: true });
    if (action.type === 'max_value') descriptor.max = action.requirement as number;
    if (action.type === 'integer') descriptor.integer = true;
  }
  if (descriptor.kind === 'style') descriptor.fields = describeProps(schema);
  return descriptor;
}

function describeProps(object: Walked): PropDescriptor[] {
  return Object.entries(object.entries ?? {}).map(([name, entry]) => describeProp(name, entry));
}

/** Every node type, in COMPONENT_TYPES order. */
export function nodeVocabulary(): NodeDescriptor[] {
  const options = (ComponentNodeSchema as unknown as { options: Walked[] }).options;
  return COMPONENT_TYPES.map((type) => {
    const option = options.find((candidate) => (candidate.entries!.type as unknown as { literal: string }).literal === type)!;
    const props = option.entries!.props!;
    return {
      type,
      description: v.getDescription(option.entries!.type!) ?? '',
      props: describeProps(props.type === 'optional' ? props.wrapped! : props),
      children: option.entries!.children ? (CHILD_RULES[type] ?? {}) : null,
      needs_fallback: NEWER_TYPES.has(type),
    };
  });
}
