/**
 * Valibot issues as field errors: JSON pointers to the
 * offending place and plain-English messages. Valibot's default messages
 * quote the received value ("… but received "…""), and error bodies must
 * never echo input back, so every issue is described by what its schema
 * expected. Set as valibot's global message, this covers every parse in the
 * process, including schemas that give no message of their own.
 */
import * as v from 'valibot';
import type { FieldError } from './errors.ts';
import { type Path, pointer } from './pointer.ts';

/** The path of a valibot issue; its items carry the key or index of each step. */
export function issuePath(issue: { readonly path?: readonly { readonly key: unknown }[] | undefined }): Path {
  return (issue.path ?? []).map((item) => (typeof item.key === 'number' ? item.key : String(item.key)));
}

function plural(count: unknown, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Plain-English message of a valibot issue that its schema gave no message
 * of its own. Built only from what the schema expects: valibot's default
 * messages quote the received value, which must never be echoed back.
 */
export function describeIssue(issue: v.BaseIssue<unknown>): string {
  switch (issue.type) {
    case 'object':
    case 'strict_object':
    case 'loose_object':
    case 'record':
      // An object schema's issue carries a path only when it is about one key.
      if (!issue.path) return 'Expected an object';
      return issue.expected === 'never' ? 'Unknown property' : 'Required property is missing';
    case 'array':
      return 'Expected an array';
    case 'string':
      return 'Expected a string';
    case 'number':
      return 'Expected a number';
    case 'boolean':
      return 'Expected true or false';
    case 'integer':
      return 'Must be a whole number';
    case 'min_value':
      return `Must be at least ${String(issue.requirement)}`;
    case 'max_value':
      return `Must be at most ${String(issue.requirement)}`;
    case 'gt_value':
      return `Must be greater than ${String(issue.requirement)}`;
    case 'min_length':
      return `Must have at least ${plural(issue.requirement, typeof issue.input === 'string' ? 'character' : 'item')}`;
    case 'max_length':
      return `Must have at most ${plural(issue.requirement, typeof issue.input === 'string' ? 'character' : 'item')}`;
    default:
      return issue.expected ? `Invalid value; expected ${issue.expected}` : 'Invalid value';
  }
}

v.setGlobalMessage(describeIssue);

/** Valibot issues as `{path, message}` pairs. */
export function issuesToErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => ({ path: pointer(issuePath(issue)), message: issue.message }));
}
