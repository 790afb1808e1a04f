import { formatPlan, makePlan } from '../config-dir/plan.ts';
import { writePlan } from '../config-dir/saved-plan.ts';
import { type Command, parse, print, UsageError } from './command.ts';
import { openTarget, TARGET_HELP, TARGET_OPTIONS } from './config-target.ts';
import { readDirectory } from './directory.ts';

export const PLAN_OPTIONS_HELP = `  --publish       make the applied paywalls live (those paywalld.json lists, or
                  all of the directory's); without it new revisions are drafts
  --prune         archive the target's paywalls that the directory does not
                  have, and delete its products missing from products.json
                  (unless a live paywall still puts them in a slot)`;

const help = `Usage:
  paywalld plan DIR (--server URL | --db FILE|URL [--project ID]) [--publish] [--prune] [--out FILE]

Shows what "paywalld apply DIR" would do, changing nothing: the products and
paywalls it would create, change (with a diff), publish, archive or delete,
and what it leaves alone. The directory is validated first.

Options:
${PLAN_OPTIONS_HELP}
  --out FILE      save the plan with its target (never the key) and options;
                  "apply DIR --plan FILE" applies exactly it, and refuses if
                  the target or the directory changed since

${TARGET_HELP}`;

export const planCommand: Command = {
  name: 'plan',
  summary: 'show what applying a configuration directory would change',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...TARGET_OPTIONS,
      publish: { type: 'boolean' },
      prune: { type: 'boolean' },
      out: { type: 'string' },
    });
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('plan takes exactly one DIR');
    const dir = positionals[0]!;
    const desired = readDirectory(dir);
    const options = { publish: values.publish ?? false, prune: values.prune ?? false };
    const target = await openTarget(values);
    try {
      const plan = await makePlan(desired, target.backend, options);
      for (const line of formatPlan(plan, dir)) print(line);
      if (values.out !== undefined) {
        writePlan(values.out, plan, options, target.source);
        // The plan carries its target (not the key) and its --publish and --prune: the command needs nothing more.
        print(`Saved the plan to ${values.out}: apply it with "paywalld apply ${dir} --plan ${values.out}".`);
      }
      return 0;
    } finally {
      await target.close();
    }
  },
};
