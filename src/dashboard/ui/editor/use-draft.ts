/**
 * The document being edited, shared by every panel and the JSON tab: one
 * history of whole documents (undo-stack.ts), and the JSON text. The text
 * follows the document (pretty-printed) until the author types in it; what
 * they type becomes the document as soon as it parses, and stays as typed
 * (their spacing) until another panel edits. A text that does not parse is
 * kept, never replaced, and the panels show the last document that did.
 */
import { useRef, useState } from 'preact/hooks';
import { isObject, type JsonObject, pretty } from './json.ts';
import { syntaxLine } from './locate.ts';
import { type History, record, redo, startHistory, undo } from './undo-stack.ts';

export interface SyntaxProblem {
  message: string;
  line: number | undefined;
}

interface State {
  history: History<JsonObject>;
  /** null: the text is the document, pretty-printed. */
  typed: string | null;
  syntax: SyntaxProblem | null;
  /** The document as last saved (or loaded): unsaved changes are any other. */
  saved: JsonObject;
}

export interface Draft {
  doc: JsonObject;
  text: string;
  syntax: SyntaxProblem | null;
  dirty: boolean;
  canUndo: boolean;
  canRedo: boolean;
  /** A panel's edit; edits of one `group` (a field) in a row are one undo step. */
  edit: (next: JsonObject, group?: string) => void;
  type: (text: string) => void;
  undo: () => void;
  redo: () => void;
  /** A document from the server (loaded, or theirs after a conflict): a fresh history, nothing unsaved. */
  reset: (doc: JsonObject) => void;
  /** The document now present was saved. */
  saved: () => void;
}

const EMPTY: JsonObject = {};

export function useDraft(): Draft {
  const [state, setState] = useState<State>({ history: startHistory(EMPTY), typed: null, syntax: null, saved: EMPTY });
  const doc = state.history.present;
  // The text is made when something reads it (the JSON tab, a conflict), not on every keystroke of another tab.
  const printed = useRef<{ doc: JsonObject; text: string } | null>(null);
  return {
    doc,
    get text() {
      if (state.typed !== null) return state.typed;
      if (printed.current?.doc !== doc) printed.current = { doc, text: pretty(doc) };
      return printed.current.text;
    },
    syntax: state.syntax,
    dirty: doc !== state.saved || state.syntax !== null,
    canUndo: state.history.past.length > 0,
    canRedo: state.history.future.length > 0,
    edit: (next, group) => setState((s) => ({ ...s, history: record(s.history, next, group ?? null), typed: null, syntax: null })),
    type: (text) =>
      setState((s) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (failure) {
          const message = (failure as Error).message;
          return { ...s, typed: text, syntax: { message, line: syntaxLine(text, message) } };
        }
        // Valid JSON that is no object is still the author's text; the server says what is wrong with it.
        const next = isObject(parsed) ? parsed : s.history.present;
        return {
          ...s,
          history: record(s.history, next, 'json'),
          typed: text,
          syntax: isObject(parsed) ? null : { message: 'A paywall document is a JSON object', line: 1 },
        };
      }),
    undo: () => setState((s) => ({ ...s, history: undo(s.history), typed: null, syntax: null })),
    redo: () => setState((s) => ({ ...s, history: redo(s.history), typed: null, syntax: null })),
    reset: (next) => setState({ history: startHistory(next), typed: null, syntax: null, saved: next }),
    saved: () => setState((s) => ({ ...s, saved: s.history.present })),
  };
}
