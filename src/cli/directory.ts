import { formatDiagnostic, validateDirectory } from '../config-dir/validate.ts';
import type { DesiredState } from '../config-dir/state.ts';

/** The directory's desired state; an invalid directory prints its errors on stderr and fails the command. */
export function readDirectory(dir: string): DesiredState {
  const { errors, desired } = validateDirectory(dir);
  if (!desired) {
    for (const error of errors) process.stderr.write(formatDiagnostic(error, 'error') + '\n');
    throw new Error(`${dir} is not valid (${errors.length} error(s)); nothing was done`);
  }
  return desired;
}
