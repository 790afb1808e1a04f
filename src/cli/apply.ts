import { applyPlan } from '../config-dir/apply.ts';
import { baseOf, formatPlan, makePlan } from '../config-dir/plan.ts';
import { planDrift, readPlan } from '../config-dir/saved-plan.ts';
import { editedSince, recordBase, recordedBase } from '../config-dir/sync-record.ts';
import { type Command, parse, print, UsageError } from './command.ts';
import { openTarget, TARGET_HELP, TARGET_OPTIONS } from './config-target.ts';
import { readDirectory } from './directory.ts';
import { PLAN_OPTIONS_HELP } from './plan.ts';

const help = `Usage:
  paywalld apply DIR (--server URL | --db FILE|URL [--project ID]) [--publish] [--prune] [--force]
  paywalld apply DIR --plan FILE [--server URL | --db FILE|URL [--project ID]]

Makes the target match the directory: creates and changes products, writes a
new revision of each paywall whose document differs, and with --publish makes
them live. Every write carries the ETag it read (If-Match), so an edit made
meanwhile (in the dashboard, by another apply) is refused and reported, never
overwritten. Applying the same directory again changes nothing and says so.
Against a database the whole apply is one transaction: a failure changes
nothing. Against a server the steps are separate requests: a failure stops
at the step that failed and says which steps were done.

A product or paywall changed on the target since the last export or apply
from DIR (recorded in DIR/.paywalld-sync.json) is not overwritten: apply
refuses, names it, and changes nothing, unless --force.

Options:
${PLAN_OPTIONS_HELP}
  --force         overwrite what was changed on the target since the last
                  export or apply from DIR
  --plan FILE     apply the plan saved by "paywalld plan --out FILE" (with its
                  target, --publish and --prune), refusing if the target or the
                  directory changed since it was made; a server target still
                  takes its key from PAYWALLD_KEY (or --key)

${TARGET_HELP}`;

export const applyCommand: Command = {
  name: 'apply',
  summary: 'make a project match a configuration directory',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...TARGET_OPTIONS,
      publish: { type: 'boolean' },
      prune: { type: 'boolean' },
      plan: { type: 'string' },
      force: { type: 'boolean' },
    });
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('apply takes exactly one DIR');
    const dir = positionals[0]!;
    const desired = readDirectory(dir);
    const saved = values.plan === undefined ? undefined : readPlan(values.plan);
    for (const flag of ['publish', 'prune'] as const) {
      // Repeating the plan's own option is harmless; another one would apply something else than what was reviewed.
      if (saved && values[flag] !== undefined && values[flag] !== saved.options[flag]) {
        throw new UsageError(`the plan was made ${saved.options[flag] ? 'with' : 'without'} --${flag}; make a new plan to change that`);
      }
    }
    const options = saved?.options ?? { publish: values.publish ?? false, prune: values.prune ?? false };
    // A saved plan knows its target; flags naming one win (and a different one is refused below).
    const named = values.server !== undefined || values.db !== undefined;
    const target = await openTarget(saved?.source && !named ? { ...saved.source, key: values.key } : values);
    try {
      const plan = await makePlan(desired, target.backend, options);
      const drift = saved && planDrift(saved, plan);
      if (drift) throw new Error(`refused: ${drift}. Nothing was changed; run plan again and review it.`);
      const recorded = recordedBase(dir, plan.target);
      const edited = saved || values.force || !recorded ? [] : editedSince(recorded, plan);
      if (edited.length > 0) {
        throw new Error(
          `refused: since the last export or apply from ${dir}, on ${plan.target} ${edited.join(', ')}; applying would overwrite that. Nothing was changed. Run "paywalld export ${dir}" (with the same target) to take the change into the directory, or apply --force to overwrite it.`,
        );
      }
      if (plan.steps.length === 0) {
        const unrecorded = recordBase(dir, plan.target, plan.base);
        for (const line of formatPlan(plan, dir)) print(line);
        if (unrecorded) print(`Note: ${unrecorded}.`);
        return 0;
      }
      await applyPlan(plan, target.backend, (line) => print(`done: ${line}`));
      const unrecorded = recordBase(dir, plan.target, baseOf(await target.backend.read()));
      print(`Applied ${plan.steps.length} step(s) to ${plan.target}.`);
      for (const note of [...plan.notes, ...(unrecorded ? [unrecorded] : [])]) print(`Note: ${note}.`);
      return 0;
    } finally {
      await target.close();
    }
  },
};
