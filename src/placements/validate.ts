/**
 * A placement document checked in depth: the schema, then what it cannot
 * express (each audience a condition that evaluates as its author meant, and
 * names only facts purchases.* has), with errors at JSON pointers into the
 * document. The server runs it on every write and `paywalld validate` on
 * placements/*.json, so a directory that validates is one the server takes.
 */
import * as v from 'valibot';
import { validateCondition } from '../paywalls/targeting/condition.ts';
import { serverAttributeProblems } from '../paywalls/targeting/server-attributes.ts';
import type { FieldError } from '../shared/errors.ts';
import { issuesToErrors } from '../shared/issues.ts';
import { pointer } from '../shared/pointer.ts';
import { NO_DEFAULT, type PlacementDocument, PlacementSchema, type PlacementWarning } from './schema.ts';

/** What the checks know of the paywalls: whether one is served (live), or undefined where that cannot be known (a directory offline). */
interface PlacementDeps {
  paywallLive(paywallId: string): boolean | undefined;
}

type PlacementValidation = { ok: true; value: PlacementDocument; warnings: PlacementWarning[] } | { ok: false; errors: FieldError[] };

function warnings(document: PlacementDocument, deps: PlacementDeps): PlacementWarning[] {
  const found: PlacementWarning[] = [];
  const notLive = (paywallId: string, path: string) => {
    if (deps.paywallLive(paywallId) === false) {
      found.push({ path, code: 'paywall_not_live', message: `paywall ${paywallId} is not live: users this decides for are shown nothing (paywall_not_live)` });
    }
  };
  let catchAll = -1;
  document.rules.forEach((rule, i) => {
    notLive(rule.paywall_id, pointer(['rules', i, 'paywall_id']));
    if (catchAll >= 0) {
      found.push({
        path: pointer(['rules', i]),
        code: 'unreachable_rule',
        message: `rule ${catchAll} has no audience: it decides for every user, and this rule is never tried`,
      });
    } else if (rule.audience === undefined || Object.keys(rule.audience).length === 0) catchAll = i;
  });
  if (document.default !== undefined && document.default !== NO_DEFAULT) notLive(document.default, '/default');
  return found;
}

export function validatePlacement(input: unknown, deps: PlacementDeps): PlacementValidation {
  const parsed = v.safeParse(PlacementSchema, input);
  if (!parsed.success) return { ok: false, errors: issuesToErrors(parsed.issues) };
  const errors: FieldError[] = [];
  parsed.output.rules.forEach((rule, i) => {
    if (rule.audience === undefined) return;
    const at = pointer(['rules', i, 'audience']);
    for (const problem of [...validateCondition(rule.audience), ...serverAttributeProblems(rule.audience)]) {
      errors.push({ path: at + problem.path, message: problem.message });
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: parsed.output, warnings: warnings(parsed.output, deps) };
}
