import type { JSX } from 'preact';
import { DiffView } from './diff-view.tsx';
import { type JsonObject, pretty } from './json.ts';

/** Someone else saved while the author was editing: their revision against the draft, and the choice of which to keep. */
export function ConflictBanner(props: {
  revision: number;
  theirs: JsonObject;
  mine: JsonObject;
  onTakeTheirs: () => void;
  onSaveMine: () => void;
}): JSX.Element {
  return (
    <div class="banner banner-warning" role="alert">
      <p>
        <strong>Someone else saved revision {props.revision}</strong> while you were editing. Your edit was not saved and is still in the editor. Compare, then
        keep theirs or save yours over it.
      </p>
      <DiffView before={pretty(props.theirs)} after={pretty(props.mine)} label={`Their r${props.revision} (−) against your draft (+)`} />
      <div class="row">
        <button type="button" class="button" onClick={props.onTakeTheirs}>
          Discard mine, load theirs
        </button>
        <button type="button" class="button danger" onClick={props.onSaveMine}>
          Save mine as r{props.revision + 1}
        </button>
      </div>
    </div>
  );
}
