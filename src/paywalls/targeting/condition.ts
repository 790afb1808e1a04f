/**
 * Targeting conditions: GrowthBook's MongoDB-style condition language
 * (packages/sdk-js/src/mongrule.ts, spec 0.5.4), with GrowthBook's semantics
 * including its quirks, so a condition authored for GrowthBook targets the
 * same users here. A condition is compiled once into closures; evaluating it
 * on the hot path never re-reads the document or re-compiles a regex.
 */
import { RE2JS } from 're2js';
import { pointer as pointerOf } from '../../shared/pointer.ts';
import { paddedVersionString } from './version.ts';

/** A condition document: logical operators ($and $or $nor $not) and dotted attribute paths. */
export type Condition = Readonly<Record<string, unknown>>;
export type Attributes = Readonly<Record<string, unknown>>;
/** A write-time problem: `path` is a JSON pointer (RFC 6901) relative to the condition root. */
type ConditionProblem = { path: string; message: string };

/** Tests one attribute value against a condition value. */
type ValueTest = (value: unknown) => boolean;
/** Tests an object (the attributes, or an array element under $elemMatch) against a condition. */
type ObjectTest = (target: unknown) => boolean;

interface OperatorSpec {
  compile(operand: unknown): ValueTest;
  /** Reports what is wrong with `operand`, which sits at `pointer`. */
  check(operand: unknown, pointer: string, problems: ConditionProblem[]): void;
}

/**
 * Malformed parts of a condition (a non-array $in, an unknown operator, an
 * invalid regex, a non-array $or…) match nothing, as GrowthBook's unknown
 * operators and invalid regexes do: targeting fails closed.
 */
const matchNothing = (): boolean => false;

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

function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // BigInt or a cycle: equal to no JSON condition
  }
}

// ---------------------------------------------------------------- operators

const VAR_TYPES = new Set(['string', 'number', 'boolean', 'array', 'object', 'null', 'undefined']);

/** GrowthBook's $type names. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return VAR_TYPES.has(type) ? type : 'unknown';
}

/** Whether any element of an array attribute (or the attribute itself) is in `set`: GrowthBook's $in. */
function intersects(value: unknown, set: ReadonlySet<unknown>): boolean {
  if (!Array.isArray(value)) return set.has(value);
  for (let i = 0; i < value.length; i++) if (set.has(value[i])) return true;
  return false;
}

/**
 * A `$regex` runs on RE2 (re2js, pure JavaScript): matching takes time linear
 * in the input whatever the pattern, so a pattern like `^(a+)+$` and a long
 * attribute sent by an anonymous client cannot stall the event loop, as
 * JavaScript's backtracking RegExp would. The price is RE2's syntax: no
 * look-around and no backreferences; such patterns are refused at write time.
 */
function compileRegex(source: unknown): RE2JS | null {
  if (typeof source !== 'string') return null;
  try {
    // translateRegExp accepts JavaScript spellings RE2 writes differently (named groups, `\/`).
    return RE2JS.compile(RE2JS.translateRegExp(source));
  } catch {
    return null;
  }
}

function versionOperator(holds: (actual: string, expected: string) => boolean): OperatorSpec {
  return {
    compile(operand) {
      const expected = paddedVersionString(operand);
      return (value) => holds(paddedVersionString(value), expected);
    },
    check: requireOperand(isNumberOrString, 'needs a version string'),
  };
}

/**
 * The relational operators use JavaScript's own comparison, as GrowthBook:
 * a numeric string against a number compares numerically ("8" > 5), two
 * strings compare by code unit, and a missing attribute (null) acts as 0.
 */
function relationalOperator(holds: (actual: number, expected: number) => boolean): OperatorSpec {
  return {
    compile: (operand) => (value) => holds(value as number, operand as number),
    check: requireOperand(isNumberOrString, 'needs a number or a string'),
  };
}

function inOperator(negate: boolean): OperatorSpec {
  return {
    compile(operand) {
      if (!Array.isArray(operand)) return matchNothing; // for $nin too, as GrowthBook
      const members = new Set<unknown>(operand);
      return (value) => intersects(value, members) !== negate;
    },
    check: requireOperand(Array.isArray, 'needs an array'),
  };
}

const VALUE_OPERATORS = new Map<string, OperatorSpec>([
  [
    '$eq',
    {
      compile: (operand) => (value) => value === operand,
      check: requireOperand(isScalar, 'needs a string, number, boolean or null (it compares with ===)'),
    },
  ],
  [
    '$ne',
    {
      compile: (operand) => (value) => value !== operand,
      check: requireOperand(isScalar, 'needs a string, number, boolean or null (it compares with ===)'),
    },
  ],
  ['$gt', relationalOperator((actual, expected) => actual > expected)],
  ['$gte', relationalOperator((actual, expected) => actual >= expected)],
  ['$lt', relationalOperator((actual, expected) => actual < expected)],
  ['$lte', relationalOperator((actual, expected) => actual <= expected)],
  ['$veq', versionOperator((actual, expected) => actual === expected)],
  ['$vne', versionOperator((actual, expected) => actual !== expected)],
  ['$vgt', versionOperator((actual, expected) => actual > expected)],
  ['$vgte', versionOperator((actual, expected) => actual >= expected)],
  ['$vlt', versionOperator((actual, expected) => actual < expected)],
  ['$vlte', versionOperator((actual, expected) => actual <= expected)],
  ['$in', inOperator(false)],
  ['$nin', inOperator(true)],
  [
    '$exists',
    {
      // Loose `!=`: undefined and null both count as absent.
      compile: (operand) => (operand ? (value) => value != null : (value) => value == null),
      check: requireOperand((operand) => typeof operand === 'boolean', 'needs true or false'),
    },
  ],
  [
    '$type',
    {
      compile: (operand) => (value) => typeName(value) === operand,
      check: requireOperand(
        (operand) => typeof operand === 'string' && VAR_TYPES.has(operand),
        'needs one of string, number, boolean, array, object, null, undefined',
      ),
    },
  ],
  [
    '$regex',
    {
      compile(operand) {
        const regex = compileRegex(operand);
        return regex ? (value) => regex.test(String(value)) : matchNothing;
      },
      check: requireOperand(
        (operand) => compileRegex(operand) !== null,
        'needs a regular expression in RE2 syntax (linear-time matching: no look-around, no backreferences)',
      ),
    },
  ],
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

function requireOperand(isValid: (operand: unknown) => boolean, message: string): OperatorSpec['check'] {
  return (operand, pointer, problems) => {
    if (!isValid(operand)) problems.push({ path: pointer, message });
  };
}

// ---------------------------------------------------------------- shapes

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOperatorName(key: string): boolean {
  return key.startsWith('$');
}

/** GrowthBook's test for an operator object: non-empty, and every key an operator. */
function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every(isOperatorName);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isNumberOrString(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'string';
}
