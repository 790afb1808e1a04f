import type { GenericSchema } from 'valibot';

/** What a valibot schema of one query parameter asks of its value. */
interface ParameterRule {
  name: string;
  required: boolean;
  /** In UTF-16 code units, as valibot's maxLength counts. */
  maxLength: number;
  /** The allowed values of a picklist, undefined for any string. */
  options: readonly string[] | undefined;
}

interface SchemaNode {
  kind: string;
  type: string;
  pipe?: readonly SchemaNode[];
  wrapped?: SchemaNode;
  default?: unknown;
  options?: readonly string[];
  requirement?: unknown;
}

/**
 * The rules of an object schema whose entries are (optional) strings or
 * picklists with maxLength, read from the schema itself: the resolve hot path
 * checks a query against these, so that the schema stays the one place where
 * the rules are written. Anything else in the schema throws here, at start,
 * rather than being skipped by the check: whoever adds a rule to the schema
 * adds it to this reader too.
 */
export function parameterRules(schema: { entries: Record<string, GenericSchema> }): ParameterRule[] {
  return Object.entries(schema.entries).map(([name, entry]) => {
    let node = entry as unknown as SchemaNode;
    const rule: ParameterRule = { name, required: true, maxLength: Number.POSITIVE_INFINITY, options: undefined };
    if (node.type === 'optional') {
      if (node.default !== undefined) throw new Error(`query parameter ${name}: a default value is not supported by the fast check`);
      rule.required = false;
      node = node.wrapped!;
    }
    collect(name, node, rule);
    return rule;
  });
}

function collect(name: string, node: SchemaNode, rule: ParameterRule): void {
  const [base, ...actions] = node.pipe ?? [node];
  if (base !== node && base!.pipe) collect(name, base!, rule);
  else if (base!.type === 'picklist') rule.options = base!.options;
  else if (base!.type !== 'string') throw new Error(`query parameter ${name}: schema type ${base!.type} is not supported by the fast check`);
  for (const action of actions) {
    if (action.kind === 'metadata') continue;
    if (action.type === 'max_length' && typeof action.requirement === 'number') rule.maxLength = Math.min(rule.maxLength, action.requirement);
    else throw new Error(`query parameter ${name}: ${action.kind} ${action.type} is not supported by the fast check`);
  }
}

/** Whether `values` (aligned with `rules`) pass every rule. */
export function passes(rules: readonly ParameterRule[], values: readonly (string | undefined)[]): boolean {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const value = values[i];
    if (value === undefined) {
      if (rule.required) return false;
    } else if (value.length > rule.maxLength || (rule.options !== undefined && !rule.options.includes(value))) {
      return false;
    }
  }
  return true;
}
