/** What every panel of the visual editor is given: the draft, the scope it edits, the locale shown, and the server's last check. */
import type { JsonObject, Path } from './json.ts';
import type { Check } from './problems.tsx';
import type { Scope } from './scope.ts';

export interface PanelProps {
  doc: JsonObject;
  scope: Scope;
  /** The locale texts are shown and edited in: the preview's. */
  locale: string;
  /** A new document; edits of one `group` in a row are one undo step. */
  edit: (next: JsonObject, group?: string) => void;
  check: Check;
  /** Why nothing can be edited (the role, a JSON syntax error), or null. */
  readOnly: string | null;
}

/** The JSON pointer of `path` below `base` (RFC 6901). */
export function pointerOf(base: Path, path: Path = []): string {
  return [...base, ...path].map((step) => `/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
