/**
 * The JSON tab: the same document as the other tabs, as text, editable as
 * before the visual editor; what is typed becomes the document as soon as
 * it parses (use-draft.ts). A problem's pointer selects its place here.
 */
import type { JSX, Ref } from 'preact';
import type { Draft } from './use-draft.ts';

export function JsonPanel({
  draft,
  readOnly,
  invalid,
  textarea,
}: {
  draft: Draft;
  readOnly: boolean;
  invalid: boolean;
  textarea: Ref<HTMLTextAreaElement>;
}): JSX.Element {
  return (
    <section aria-labelledby="json-title" class="json-panel">
      <h2 id="json-title" class="visually-hidden">
        JSON
      </h2>
      <label for="document" class="editor-label">
        Document (JSON)
      </label>
      <textarea
        id="document"
        ref={textarea}
        class="code"
        spellcheck={false}
        readOnly={readOnly}
        value={draft.text}
        onInput={(e) => draft.type(e.currentTarget.value)}
        aria-describedby="problems"
        aria-invalid={invalid ? 'true' : 'false'}
      />
    </section>
  );
}
