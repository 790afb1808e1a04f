/**
 * The parts the condition operators (condition.ts) are built from: what an
 * operator is (how it compiles, what operand it accepts), GrowthBook's value
 * tests ($type names, $in on arrays, JSON equality), RE2 regexes, and the
 * shapes a condition's parts can have.
 */
import { RE2JS } from 're2js';
import { paddedVersionString } from './version.ts';

/** A write-time problem: `path` is a JSON pointer (RFC 6901) relative to the condition root. */
export type ConditionProblem = { path: string; message: string };

/** Tests one attribute value against a condition value. */
export type ValueTest = (value: unknown) => boolean;
/** Tests an object (the attributes, or an array element under $elemMatch) against a condition. */
export type ObjectTest = (target: unknown) => boolean;

export interface OperatorSpec {
  compile(operand: unknown): ValueTest;
  /** Reports what is wrong with `operand`, which sits at `pointer`. */
  check(operand: unknown, pointer: string, problems: ConditionProblem[]): void;
}

/**
 * Malformed parts of a condition (a non-array $in, an unknown operator, an
 * invalid regex, a non-array $or…) match nothing, as GrowthBook's unknown
 * operators and invalid regexes do: targeting fails closed.
 */
export const matchNothing = (): boolean => false;

export function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // BigInt or a cycle: equal to no JSON condition
  }
}

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

function requireOperand(isValid: (operand: unknown) => boolean, message: string): OperatorSpec['check'] {
  return (operand, pointer, problems) => {
    if (!isValid(operand)) problems.push({ path: pointer, message });
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isOperatorName(key: string): boolean {
  return key.startsWith('$');
}

/** GrowthBook's test for an operator object: non-empty, and every key an operator. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
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

/** The operators that test a value against their operand alone; condition.ts adds those that nest conditions ($not, $size, $elemMatch, $all). */
export const VALUE_TESTS: [string, OperatorSpec][] = [
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
];
