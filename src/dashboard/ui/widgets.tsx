/** Small pieces every page uses: problem banners, a confirmation dialog, a copy button, labelled selects, dates. */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export function Problem({ error }: { error: unknown }): JSX.Element | null {
  if (!error) return null;
  const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  const errors = error instanceof ApiError ? error.errors : [];
  return (
    <div class="banner banner-error" role="alert">
      <p>{message}</p>
      {errors.length > 0 ? (
        <ul>
          {errors.map((e) => (
            <li key={e.path + e.message}>
              <code>{e.path || '/'}</code> {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A modal question with a default of "no": Escape or Cancel closes it. */
export function Confirm(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  // A page may hold several (the editor's publish and the history's rollback): each titles itself.
  const titleId = useId();
  // Set while a close this component asked for is on its way: its close event arrives later, maybe once the dialog is
  // open again for the next question, and must not cancel that one. Any other close (Escape) is the person's Cancel.
  const closing = useRef(false);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) element.showModal();
    if (!props.open && element.open) {
      closing.current = true;
      element.close();
    }
  }, [props.open]);
  const closed = () => {
    if (closing.current) closing.current = false;
    else if (props.open) props.onCancel();
  };
  return (
    <dialog ref={dialog} class="dialog" aria-labelledby={titleId} onClose={closed}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      <div class="row end">
        <button type="button" class="button" autofocus onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'button danger' : 'button primary'} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }): JSX.Element {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" class="button" onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy by hand' : label}
    </button>
  );
}

export function when(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function ago(iso: string): string {
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

export function StatusBadge({ status }: { status: string }): JSX.Element {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

/** A labelled select: the `leading` options (a placeholder, a default) first, then one option per entry of `options`. */
export function SelectField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly { value: string; label: string }[];
  leading?: ComponentChildren;
}): JSX.Element {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        {props.leading}
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
