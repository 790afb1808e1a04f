/**
 * Targeting conditions: GrowthBook's MongoDB-style condition language
 * (packages/sdk-js/src/mongrule.ts, spec 0.5.4), with GrowthBook's semantics
 * including its quirks, so a condition authored for GrowthBook targets the
 * same users here. A condition is compiled once into closures; evaluating it
 * on the hot path never re-reads the document or re-compiles a regex.
 */
import { pointer as pointerOf } from '../../shared/pointer.ts';
import {
  type ConditionProblem,
  isOperatorName,
  isOperatorObject,
  isPlainObject,
  jsonText,
  matchNothing,
  type ObjectTest,
  type OperatorSpec,
  VALUE_TESTS,
  type ValueTest,
} from './operators.ts';

/** A condition document: logical operators ($and $or $nor $not) and dotted attribute paths. */
export type Condition = Readonly<Record<string, unknown>>;
export type Attributes = Readonly<Record<string, unknown>>;

export function compileCondition(condition: Condition): (attributes: Attributes) => boolean {
  return compileConditionObject(condition);
}

/** One-off evaluation; code that evaluates a condition per request should keep compileCondition's result. */
export function evalCondition(attributes: Attributes, condition: Condition): boolean {
  return compileConditionObject(condition)(attributes);
}

/** Every problem that would make `condition` evaluate differently from what its author meant. */
export function validateCondition(condition: unknown): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  checkConditionObject(condition, '', problems);
  return problems;
}

// ---------------------------------------------------------------- compiling

function compileConditionObject(condition: unknown): ObjectTest {
  if (!isPlainObject(condition)) return matchNothing;
  const clauses = Object.entries(condition).map(([key, operand]) => compileClause(key, operand));
  return (target) => allPass(clauses, target);
}

function compileClause(key: string, operand: unknown): ObjectTest {
  switch (key) {
    case '$and': {
      const conditions = compileConditionList(operand);
      return conditions ? (target) => allPass(conditions, target) : matchNothing;
    }
    case '$or': {
      const conditions = compileConditionList(operand);
      return conditions ? (target) => anyPassOrEmpty(conditions, target) : matchNothing;
    }
    case '$nor': {
      const conditions = compileConditionList(operand);
      return conditions ? (target) => !anyPassOrEmpty(conditions, target) : matchNothing;
    }
    case '$not': {
      if (!isPlainObject(operand)) return matchNothing;
      const negated = compileConditionObject(operand);
      return (target) => !negated(target);
    }
    default: {
      // Any other key, even one starting with `$` (GrowthBook's `$groups`), names an attribute.
      const path = key.split('.');
      const test = compileValueCondition(operand);
      return (target) => test(lookupPath(target, path));
    }
  }
}

function compileConditionList(operand: unknown): ObjectTest[] | null {
  return Array.isArray(operand) ? operand.map(compileConditionObject) : null;
}

/**
 * The value at a dotted path, or null when any step is missing or not an
 * object (GrowthBook returns null, not undefined, so `$exists`, `$type` and
 * null equality all see a missing attribute as null). Unlike GrowthBook, only
 * own properties are followed: a path like `name.constructor` must not reach
 * Object.prototype.
 */
export function lookupPath(target: unknown, path: readonly string[]): unknown {
  let current = target;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return null;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function compileValueCondition(expected: unknown): ValueTest {
  // Scalars compare loosely, as GrowthBook: the attribute is coerced to the condition's type.
  if (typeof expected === 'string') return (value) => String(value) === expected;
  if (typeof expected === 'number') return (value) => Number(value) === expected;
  if (typeof expected === 'boolean') return (value) => value !== null && Boolean(value) === expected;
  if (expected === null) return (value) => value === null;
  if (isOperatorObject(expected)) {
    const tests = Object.entries(expected).map(([operator, operand]) => compileOperator(operator, operand));
    return (value) => allPass(tests, value);
  }
  // Arrays and plain objects compare by JSON text, as GrowthBook: order and key order matter.
  const expectedJson = JSON.stringify(expected);
  return (value) => jsonText(value) === expectedJson;
}

function compileOperator(operator: string, operand: unknown): ValueTest {
  return VALUE_OPERATORS.get(operator)?.compile(operand) ?? matchNothing;
}

function allPass(tests: readonly ((input: unknown) => boolean)[], input: unknown): boolean {
  for (let i = 0; i < tests.length; i++) if (!tests[i]!(input)) return false;
  return true;
}

/** GrowthBook's $or: an empty list passes. */
function anyPassOrEmpty(tests: readonly ObjectTest[], target: unknown): boolean {
  if (tests.length === 0) return true;
  for (let i = 0; i < tests.length; i++) if (tests[i]!(target)) return true;
  return false;
}

const VALUE_OPERATORS = new Map<string, OperatorSpec>([
  ...VALUE_TESTS,
  [
    '$not',
    {
      compile(operand) {
        const negated = compileValueCondition(operand);
        return (value) => !negated(value);
      },
      check: checkValueCondition,
    },
  ],
  [
    '$size',
    {
      compile(operand) {
        const lengthTest = compileValueCondition(operand);
        return (value) => Array.isArray(value) && lengthTest(value.length);
      },
      check(operand, pointer, problems) {
        if (isPlainObject(operand)) checkValueCondition(operand, pointer, problems);
        else if (typeof operand !== 'number') problems.push({ path: pointer, message: 'needs a number or an operator object' });
      },
    },
  ],
  [
    '$elemMatch',
    {
      compile(operand) {
        if (!isPlainObject(operand)) return matchNothing;
        // An operator object tests each element's value; anything else is a condition on each element's fields.
        const test = isOperatorObject(operand) ? compileValueCondition(operand) : compileConditionObject(operand);
        return (value) => {
          if (!Array.isArray(value)) return false;
          // Falsy elements (0, '', false, null) never match, as GrowthBook.
          for (let i = 0; i < value.length; i++) if (value[i] && test(value[i])) return true;
          return false;
        };
      },
      check(operand, pointer, problems) {
        if (!isPlainObject(operand)) problems.push({ path: pointer, message: 'needs a condition object' });
        else if (isOperatorObject(operand)) checkValueCondition(operand, pointer, problems);
        else checkConditionObject(operand, pointer, problems);
      },
    },
  ],
  [
    '$all',
    {
      compile(operand) {
        if (!Array.isArray(operand)) return matchNothing;
        const tests = operand.map(compileValueCondition);
        // Every expected condition value is met by at least one element.
        return (value) => {
          if (!Array.isArray(value)) return false;
          for (let i = 0; i < tests.length; i++) if (!value.some(tests[i]!)) return false;
          return true;
        };
      },
      check(operand, pointer, problems) {
        if (!Array.isArray(operand)) problems.push({ path: pointer, message: 'needs an array' });
        else
          operand.forEach((item, index) => {
            checkValueCondition(item, `${pointer}/${index}`, problems);
          });
      },
    },
  ],
]);

/** Condition-level operators whose operand is a list of conditions. */
const LIST_OPERATORS = new Set(['$and', '$or', '$nor']);

// ---------------------------------------------------------------- validating

function checkConditionObject(condition: unknown, pointer: string, problems: ConditionProblem[]): void {
  if (!isPlainObject(condition)) {
    problems.push({ path: pointer, message: 'needs a condition object' });
    return;
  }
  for (const [key, operand] of Object.entries(condition)) {
    const at = pointer + pointerOf([key]);
    if (LIST_OPERATORS.has(key)) {
      if (!Array.isArray(operand)) problems.push({ path: at, message: 'needs an array of conditions' });
      else
        operand.forEach((item, index) => {
          checkConditionObject(item, `${at}/${index}`, problems);
        });
    } else if (key === '$not') {
      checkConditionObject(operand, at, problems);
    } else if (VALUE_OPERATORS.has(key)) {
      // Would be read as an attribute named like the operator.
      problems.push({ path: at, message: 'this operator tests an attribute value; nest it under an attribute name' });
    } else {
      checkValueCondition(operand, at, problems);
    }
  }
}

function checkValueCondition(expected: unknown, pointer: string, problems: ConditionProblem[]): void {
  // Scalars and arrays are literals compared for equality; so are objects without operators.
  if (!isPlainObject(expected)) return;
  const keys = Object.keys(expected);
  const mixed = !keys.every(isOperatorName);
  for (const key of keys) {
    if (!isOperatorName(key)) continue;
    const at = pointer + pointerOf([key]);
    const spec = VALUE_OPERATORS.get(key);
    if (mixed) {
      problems.push({ path: at, message: 'operators cannot be mixed with plain keys (the object would be compared literally)' });
    } else if (spec) {
      spec.check(expected[key], at, problems);
    } else if (LIST_OPERATORS.has(key)) {
      problems.push({ path: at, message: 'this operator combines conditions; use it beside attribute names, not on a value' });
    } else {
      problems.push({ path: at, message: 'unknown operator' });
    }
  }
}
