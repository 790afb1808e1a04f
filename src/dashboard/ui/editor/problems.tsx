import type { JSX } from 'preact';
import type { WarningInfo } from '../../../paywalls/schema.ts';
import type { FieldError } from '../../../shared/errors.ts';

/** The server's verdict on the text being edited, or the JSON syntax error that kept it from being asked. */
export interface Check {
  state: 'checking' | 'valid' | 'invalid' | 'syntax';
  errors: FieldError[];
  warnings: WarningInfo[];
  syntax?: { message: string; line: number | undefined };
}

/** The errors and warnings of a check, each a button that shows its place in the document. */
export function Problems({ id, check, onReveal }: { id: string; check: Check; onReveal: (pointer: string) => void }): JSX.Element {
  return (
    <div id={id} class="problems" aria-live="polite">
      {check.state === 'syntax' ? (
        <p class="problem problem-error">
          JSON syntax error{check.syntax?.line ? ` on line ${check.syntax.line}` : ''}: {check.syntax?.message}
        </p>
      ) : check.state === 'valid' && check.warnings.length === 0 ? (
        <p class="problem problem-ok">Valid: the server accepts this document.</p>
      ) : check.state === 'checking' && check.errors.length === 0 && check.warnings.length === 0 ? (
        <p class="muted small">Checking…</p>
      ) : null}
      {check.errors.length > 0 ? <h3 class="small">{check.errors.length} error(s): the server would refuse this document (422)</h3> : null}
      <ul>
        {check.errors.map((e) => (
          <li key={`e${e.path}${e.message}`} class="problem problem-error" data-pointer={e.path}>
            <button type="button" class="pointer" onClick={() => onReveal(e.path)} title="Show in the document">
              {e.path || '/'}
            </button>{' '}
            {e.message}
          </li>
        ))}
        {check.warnings.map((w) => (
          <li key={`w${w.path}${w.code}`} class="problem problem-warning" data-pointer={w.path}>
            <button type="button" class="pointer" onClick={() => onReveal(w.path)} title="Show in the document">
              {w.path || '/'}
            </button>{' '}
            <span class="badge badge-warning">warning</span> {w.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
