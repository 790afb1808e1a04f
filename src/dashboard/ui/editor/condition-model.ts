/**
 * An audience's condition as the builder shows it: a group (all of, any of)
 * of rules (attribute, operator, value) and groups. `toCondition` writes
 * exactly the condition the JSON holds, and a condition is editable only
 * when reading it and writing it back gives it unchanged, key order
 * included: anything else (a $not, a nested attribute test, an operator the
 * builder does not offer) is shown read-only and kept as it is.
 */
import { isObject, type Json, type JsonObject } from './json.ts';

/** The attributes resolve knows (docs: audiences); `attr.NAME` is what the app sends as its own. */
export const ATTRIBUTES = [
  { name: 'platform', label: 'Platform' },
  { name: 'country', label: 'Country' },
  { name: 'locale', label: 'Locale' },
  { name: 'appVersion', label: 'App version' },
  { name: 'userId', label: 'User id' },
] as const;
export const CUSTOM_PREFIX = 'attr.';

/** '' is equality ({"country": "DE"}); the others are GrowthBook operators ({"country": {"$in": ["DE"]}}). */
export const OPERATORS = [
  { op: '', label: 'is' },
  { op: '$ne', label: 'is not' },
  { op: '$in', label: 'is one of' },
  { op: '$nin', label: 'is none of' },
  { op: '$vgte', label: 'version at least' },
  { op: '$vlt', label: 'version below' },
  { op: '$gt', label: 'greater than' },
  { op: '$lt', label: 'less than' },
  { op: '$exists', label: 'is present (true) or absent (false)' },
  { op: '$regex', label: 'matches the pattern' },
] as const;
export type Operator = (typeof OPERATORS)[number]['op'];

export interface Rule {
  kind: 'rule';
  attribute: string;
  operator: Operator;
  value: Json;
}

export interface Group {
  kind: 'group';
  mode: 'all' | 'any';
  /** An all-group written as {"$and": […]} rather than as one object. */
  explicit: boolean;
  items: (Rule | Group)[];
}

const LIST_OPERATORS = new Set<string>(['$in', '$nin']);
const isScalar = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);
const isOperator = (op: string): op is Operator => OPERATORS.some((entry) => entry.op === op);

function readRule(attribute: string, operand: Json): Rule | null {
  if (attribute.startsWith('$') || attribute === '') return null;
  if (isScalar(operand)) return { kind: 'rule', attribute, operator: '', value: operand };
  if (!isObject(operand)) return null;
  const entries = Object.entries(operand);
  if (entries.length !== 1) return null;
  const [op, value] = entries[0]!;
  if (op === '' || !isOperator(op)) return null;
  const fits = LIST_OPERATORS.has(op) ? Array.isArray(value) && value.every(isScalar) : isScalar(value);
  return fits ? { kind: 'rule', attribute, operator: op, value } : null;
}

function readItem(condition: Json): Rule | Group | null {
  if (!isObject(condition)) return null;
  const group = readGroup(condition);
  // One rule alone in an object is a rule of the list it is in.
  if (group && !group.explicit && group.mode === 'all' && group.items.length === 1 && group.items[0]!.kind === 'rule') return group.items[0]!;
  return group;
}

function readList(list: Json | undefined): (Rule | Group)[] | null {
  if (!Array.isArray(list)) return null;
  const items = list.map(readItem);
  return items.every((item) => item !== null) ? (items as (Rule | Group)[]) : null;
}

function readGroup(condition: JsonObject): Group | null {
  const keys = Object.keys(condition);
  if (keys.length === 1 && (keys[0] === '$or' || keys[0] === '$and')) {
    const items = readList(condition[keys[0]]);
    return items && { kind: 'group', mode: keys[0] === '$or' ? 'any' : 'all', explicit: keys[0] === '$and', items };
  }
  const items: Rule[] = [];
  for (const key of keys) {
    const rule = readRule(key, condition[key]!);
    if (!rule) return null;
    items.push(rule);
  }
  return { kind: 'group', mode: 'all', explicit: false, items };
}

function operand(rule: Rule): Json {
  return rule.operator === '' ? rule.value : { [rule.operator]: rule.value };
}

function itemCondition(item: Rule | Group): JsonObject {
  return item.kind === 'rule' ? { [item.attribute]: operand(item) } : toCondition(item);
}

/** The condition a group stands for: an all-group of rules on distinct attributes is one object; else $and or $or. */
export function toCondition(group: Group): JsonObject {
  if (group.mode === 'any') return { $or: group.items.map(itemCondition) };
  const rules = group.items.filter((item): item is Rule => item.kind === 'rule');
  const distinct = new Set(rules.map((rule) => rule.attribute)).size === group.items.length;
  if (group.explicit || !distinct) return { $and: group.items.map(itemCondition) };
  const out: JsonObject = {};
  for (const rule of rules) out[rule.attribute] = operand(rule);
  return out;
}

/** The condition as the builder shows it, or null when it would not write back unchanged (shown read-only, kept). */
export function fromCondition(condition: Json | undefined): Group | null {
  if (!isObject(condition)) return null;
  const group = readGroup(condition);
  return group && JSON.stringify(toCondition(group)) === JSON.stringify(condition) ? group : null;
}

/** A rule's value as its input shows it: a list as "a, b". */
export function valueText(rule: Rule): string {
  return Array.isArray(rule.value) ? rule.value.join(', ') : String(rule.value);
}

/** What typing `text` into a rule's value means for its operator: a list, true or false, a number to compare, else a string. */
export function valueFrom(operator: Operator, text: string): Json {
  if (LIST_OPERATORS.has(operator)) return text.split(',').flatMap((part) => (part.trim() === '' ? [] : [part.trim()]));
  if (operator === '$exists') return text !== 'false';
  if ((operator === '$gt' || operator === '$lt') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}
