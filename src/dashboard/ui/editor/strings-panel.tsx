/**
 * Strings: every string key against every locale, the default locale
 * first; a missing translation is marked (apps show the default locale's
 * text there). Editing a cell is editing that text, as in Properties: for
 * the variant chosen, its override. "Add locale" adds an empty table.
 */
import { Component, type JSX } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { FieldProblems } from './field-problems.tsx';
import { isObject, type JsonObject, setIn } from './json.ts';
import type { PanelProps } from './panel.ts';
import { defaultLocale, overriddenStrings, setString, stringsOf } from './scope.ts';

const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

interface RowProps {
  stringKey: string;
  locales: readonly string[];
  values: readonly (string | undefined)[];
  overridden: readonly boolean[];
  onEdit: (key: string, locale: string, text: string) => void;
}

/** One key's row, drawn again only when one of its texts changed: a table of 300 keys and 20 locales stays quick to type in. */
class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return p.locales !== next.locales || p.values.some((value, i) => value !== next.values[i]) || p.overridden.some((o, i) => o !== next.overridden[i]);
  }

  override render({ stringKey, locales, values, overridden, onEdit }: RowProps): JSX.Element {
    return (
      <tr>
        <th scope="row">
          <code>{stringKey}</code>
        </th>
        {locales.map((locale, i) => (
          <td key={locale} data-label={locale} class={values[i] === undefined ? 'missing' : overridden[i] ? 'overridden' : undefined}>
            <input
              aria-label={`${stringKey} in ${locale}`}
              value={values[i] ?? ''}
              placeholder={values[i] === undefined ? 'missing' : undefined}
              onInput={(event) => onEdit(stringKey, locale, event.currentTarget.value)}
            />
          </td>
        ))}
      </tr>
    );
  }
}

export function StringsPanel(props: PanelProps): JSX.Element {
  const { doc, scope, edit, check, readOnly } = props;

  const [tag, setTag] = useState('');
  const strings = stringsOf(doc, scope);
  const own = overriddenStrings(doc, scope);
  const home = defaultLocale(doc);
  const localeList = [home, ...Object.keys(strings).filter((locale) => locale !== home)].join('\n');
  // One array while the locales stay the same, so that rows whose texts did not change are not drawn again.
  const locales = useMemo(() => localeList.split('\n'), [localeList]);
  const keys = [...new Set(locales.flatMap((locale) => Object.keys(strings[locale] ?? {})))];
  const missing = keys.reduce((count, key) => count + locales.filter((locale) => strings[locale]?.[key] === undefined).length, 0);
  // Rows not drawn again keep the first callback: it reads the document of the latest render.
  const latest = useRef(props);
  latest.current = props;
  const onEdit = useMemo(
    () => (key: string, locale: string, text: string) => {
      const { doc: current, scope: now, edit: write } = latest.current;
      write(setString(current, now, locale, key, text), `string:${locale}/${key}`);
    },
    [],
  );
  const tagProblem =
    tag === '' ? null : !LOCALE.test(tag) ? 'A language tag such as fr or pt-BR' : Object.hasOwn(strings, tag) ? 'The paywall has it already' : null;
  const add = (event: Event) => {
    event.preventDefault();
    if (tag === '' || tagProblem) return;
    edit(setIn(doc, ['strings', tag], isObject(doc.strings) && isObject(doc.strings[tag]) ? doc.strings[tag] : {}) as JsonObject);
    setTag('');
  };
  return (
    <section aria-labelledby="strings-title">
      <h2 id="strings-title">Strings</h2>
      <p class="muted small">
        {keys.length} keys in {locales.length} locales; {missing} missing (apps show the {home} text there)
        {scope === null ? '.' : `. Texts changed here are variant ${scope}'s.`}
      </p>
      <fieldset class="plain" disabled={readOnly !== null}>
        <legend class="visually-hidden">Texts by key and locale</legend>
        <form class="row" onSubmit={add}>
          <div class="field">
            <label for="new-locale">Language tag</label>
            <input
              id="new-locale"
              value={tag}
              placeholder="fr"
              onInput={(e) => setTag(e.currentTarget.value.trim())}
              aria-describedby="new-locale-problems"
              aria-invalid={tagProblem ? 'true' : 'false'}
            />
          </div>
          <button type="submit" class="button small" disabled={tag === '' || tagProblem !== null}>
            Add locale
          </button>
          <FieldProblems id="new-locale-problems" check={check} pointers={[]} note={tagProblem} />
        </form>
        <div class="table-wrap strings-table">
          <table class="table">
            <caption class="visually-hidden">Texts: a row per string key, a column per locale</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                {locales.map((locale) => (
                  <th key={locale} scope="col">
                    {locale}
                    {locale === home ? ' (default)' : ''}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <Row
                  key={key}
                  stringKey={key}
                  locales={locales}
                  values={locales.map((locale) => strings[locale]?.[key])}
                  overridden={locales.map((locale) => own[locale]?.[key] !== undefined)}
                  onEdit={onEdit}
                />
              ))}
            </tbody>
          </table>
        </div>
        <FieldProblems id="strings-problems" check={check} pointers={['/strings']} />
      </fieldset>
    </section>
  );
}
