/**
 * A node's text in the locale shown. Texts live in the strings (a key per
 * text, per locale): typing into a node that still holds a literal text
 * gives it a key first (node-edits.ts), and while a variant is chosen the
 * text is that variant's. A locale without the text says which one apps
 * fall back to.
 */
import type { JSX } from 'preact';
import { FieldProblems, hasError } from './field-problems.tsx';
import { isObject, type JsonObject, type Path } from './json.ts';
import { setNodeText } from './node-edits.ts';
import { type PanelProps, pointerOf } from './panel.ts';
import { defaultLocale, stringsOf, variantIndex } from './scope.ts';

export function TextField(
  props: PanelProps & { id: string; label: string; node: JsonObject; path: Path; base: Path; keyProp: string; literal: string | null },
): JSX.Element {
  const { doc, scope, locale, edit, check, node, path, base, keyProp, literal, id, label } = props;
  const nodeProps = isObject(node.props) ? node.props : {};
  const key = typeof nodeProps[keyProp] === 'string' ? (nodeProps[keyProp] as string) : null;
  const written = literal !== null && typeof nodeProps[literal] === 'string' ? (nodeProps[literal] as string) : null;
  const strings = stringsOf(doc, scope);
  const home = defaultLocale(doc);
  const value = written ?? (key === null ? '' : (strings[locale]?.[key] ?? ''));
  const missing = written === null && key !== null && strings[locale]?.[key] === undefined;
  const nodePointer = pointerOf(base, path);
  const pointers = [`${nodePointer}/props/${keyProp}`, ...(literal ? [`${nodePointer}/props/${literal}`] : [])];
  if (key !== null) {
    pointers.push(pointerOf(['strings', locale, key]));
    const index = scope === null ? -1 : variantIndex(doc, scope);
    if (index >= 0) pointers.push(pointerOf(['variants', index, 'strings', locale, key]));
  }
  const help = `${id}-problems`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        placeholder={missing ? (strings[home]?.[key!] ?? '') : undefined}
        aria-describedby={help}
        aria-invalid={hasError(check, pointers) ? 'true' : 'false'}
        onInput={(event) =>
          edit(setNodeText(doc, scope, path, keyProp, literal, locale, event.currentTarget.value), `text:${nodePointer}:${keyProp}:${locale}`)
        }
      />
      <FieldProblems id={help} check={check} pointers={pointers} />
      <p class="muted small">
        {missing
          ? `Not translated into ${locale} yet: apps show the ${home} text.`
          : key !== null
            ? `In ${locale}${scope === null ? '' : ` for variant ${scope}`}; string key ${key}.`
            : `In ${locale}; it gets a string key as you type.`}
      </p>
    </div>
  );
}
