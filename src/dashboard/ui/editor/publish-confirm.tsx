import type { ComponentChildren, JSX } from 'preact';
import { Confirm } from '../widgets.tsx';

/**
 * The question before any publish (the editor's button and a rollback from
 * the history): which revision apps get, in place of which. `notes` adds what
 * else this publish does that the caller knows of (a new experiment phase…),
 * below the sentence every publish gets.
 */
export function PublishConfirm(props: {
  /** The revision to publish; null keeps the dialog closed. */
  revision: number | null;
  /** The revision live now, null when none is. */
  live: number | null;
  notes?: ComponentChildren;
  onConfirm: (revision: number) => void;
  onCancel: () => void;
}): JSX.Element {
  const { revision, live } = props;
  const rollback = revision !== null && live !== null && revision < live;
  return (
    <Confirm
      open={revision !== null}
      title={`Publish r${revision ?? ''}?`}
      confirmLabel={rollback ? `Roll back to r${revision}` : `Publish r${revision ?? ''}`}
      onConfirm={() => revision !== null && props.onConfirm(revision)}
      onCancel={props.onCancel}
    >
      <p>
        Apps get revision {revision} from their next resolve
        {live === null ? ': nothing is live yet.' : rollback ? `, instead of the newer r${live} live now (a rollback).` : `, instead of r${live} live now.`}
      </p>
      {props.notes}
    </Confirm>
  );
}
