import { exportDirectory } from '../config-dir/export.ts';
import { recordBase } from '../config-dir/sync-record.ts';
import { type Command, parse, print, UsageError } from './command.ts';
import { openTarget, TARGET_HELP, TARGET_OPTIONS } from './config-target.ts';

const help = `Usage:
  paywalld export DIR (--server URL | --db FILE|URL [--project ID])

Writes the project's configuration into DIR: products.json, one
paywalls/<id>.json per paywall that is not archived (its newest revision,
as PUT /api/paywalls/{id} takes it), paywalld.json listing the live ones, and
one placements/<id>.json per placement that is not archived (when there are any).
Paywall and placement files of DIR that the project does not have are removed; other files
are left alone. Formatting and order are stable: exporting an unchanged
project again writes identical bytes.

${TARGET_HELP}`;

export const exportCommand: Command = {
  name: 'export',
  summary: "write a project's products and paywalls into a directory",
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, TARGET_OPTIONS);
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('export takes exactly one DIR');
    const dir = positionals[0]!;
    const target = await openTarget(values);
    try {
      const summary = await exportDirectory(target.backend, dir);
      const unrecorded = recordBase(dir, target.backend.target, summary.base);
      for (const file of summary.removed) print(`removed ${file}`);
      const placements = summary.placements > 0 ? ` and ${summary.placements} placement(s)` : '';
      print(
        `Exported ${summary.products} product(s) and ${summary.paywalls} paywall(s) (${summary.live} live)${placements} from ${target.backend.target} to ${dir}`,
      );
      if (unrecorded) print(`Note: ${unrecorded}.`);
      return 0;
    } finally {
      await target.close();
    }
  },
};
