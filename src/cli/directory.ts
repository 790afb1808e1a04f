import type { DesiredState } from '../config-dir/state.ts';
import { formatDiagnostic, validateDirectory } from '../config-dir/validate.ts';

/** The directory's desired state, its warnings printed on stderr; an invalid directory prints its errors there and fails the command. */
export function readDirectory(dir: string): DesiredState {
  const { errors, warnings, desired } = validateDirectory(dir);
  for (const warning of warnings) process.stderr.write(`${formatDiagnostic(warning, 'warning')}\n`);
  if (!desired) {
    for (const error of errors) process.stderr.write(`${formatDiagnostic(error, 'error')}\n`);
    throw new Error(`${dir} is not valid (${errors.length} error(s)); nothing was done`);
  }
  return desired;
}
