import { formatDiagnostic, validateDirectory } from '../config-dir/validate.ts';
import { type Command, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld validate DIR [--strict] [--format text|json]

Checks a configuration directory offline (no server, no database) with the
server's own validation: products.json, every paywalls/<id>.json, every
placements/<id>.json and the optional paywalld.json. Each problem is printed as

  file:/json/pointer: message

Exit code 0 when the directory is valid, 1 when it is not. Warnings (things
a valid paywall most likely should have, such as a restore button) do not
fail it unless --strict.

Options:
  --strict        warnings fail too
  --format F      text (default) or json: {"valid","errors","warnings"},
                  each problem {"file","path","message"} (warnings add "code")`;

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a configuration directory offline',
  help,
  run(argv) {
    const { values, positionals } = parse(argv, { strict: { type: 'boolean' }, format: { type: 'string' } });
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('validate takes exactly one DIR');
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError('--format must be text or json');
    const dir = positionals[0]!;
    const { errors, warnings, desired } = validateDirectory(dir);
    const valid = errors.length === 0 && (!values.strict || warnings.length === 0);
    if (format === 'json') {
      print(JSON.stringify({ valid, errors, warnings }));
    } else {
      for (const error of errors) print(formatDiagnostic(error, 'error'));
      for (const warning of warnings) print(formatDiagnostic(warning, 'warning'));
      const counts = `${errors.length} error(s), ${warnings.length} warning(s)`;
      if (desired && valid) print(`${dir}: valid: ${desired.products.length} product(s), ${desired.paywalls.length} paywall(s); ${counts}`);
      else print(`${dir}: invalid: ${counts}${errors.length === 0 ? ' (--strict)' : ''}`);
    }
    return valid ? 0 : 1;
  },
};
