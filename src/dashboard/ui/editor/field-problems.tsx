/**
 * The server's errors and warnings beside the field they point at: a field
 * names the JSON pointers it edits, and shows every problem at or below
 * them. Its input is described by the list and marked invalid while an
 * error stands.
 */
import type { JSX } from 'preact';
import type { Check } from './problems.tsx';

const at = (path: string, pointers: readonly string[]) => pointers.some((pointer) => path === pointer || path.startsWith(`${pointer}/`));

export function hasError(check: Check, pointers: readonly string[]): boolean {
  return check.errors.some((error) => at(error.path, pointers));
}

/** The problems at `pointers`, as a list the field's input names in aria-describedby (always there, so the reference holds). */
export function FieldProblems(props: { id: string; check: Check; pointers: readonly string[]; note?: string | null; exact?: boolean }): JSX.Element {
  const { id, check, pointers, note } = props;
  const here = (path: string) => (props.exact ? pointers.includes(path) : at(path, pointers));
  const errors = check.errors.filter((error) => here(error.path));
  const warnings = check.warnings.filter((warning) => here(warning.path));
  return (
    <div id={id} class="field-problems">
      {note ? <p class="error-text small">{note}</p> : null}
      {errors.map((error) => (
        <p key={`e${error.path}${error.message}`} class="error-text small">
          {error.message}
        </p>
      ))}
      {warnings.map((warning) => (
        <p key={`w${warning.path}${warning.code}`} class="warning-text small">
          {warning.message}
        </p>
      ))}
    </div>
  );
}
