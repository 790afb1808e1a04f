/**
 * Theme: the document's named colours, light and dark side by side (a
 * colour prop names one as "@NAME"), and its fonts (family, WOFF2 URL,
 * weight; "style.font" names one). Added and removed here; the server
 * checks every reference to them.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { FieldProblems } from './field-problems.tsx';
import { getIn, isObject, type Json, type JsonObject, setIn } from './json.ts';
import { type PanelProps, pointerOf } from './panel.ts';

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const HEX6 = /^#[0-9A-Fa-f]{6}/;

function ColorCell(props: { id: string; label: string; value: Json | undefined; onChange: (value: string) => void }): JSX.Element {
  const text = typeof props.value === 'string' ? props.value : '';
  return (
    <td data-label={props.label}>
      <div class="row color-field">
        <input
          type="color"
          aria-label={`${props.label}: pick a colour`}
          value={HEX6.test(text) ? text.slice(0, 7).toLowerCase() : '#000000'}
          onInput={(e) => props.onChange(e.currentTarget.value.toUpperCase())}
        />
        <input id={props.id} aria-label={props.label} value={text} size={9} onInput={(e) => props.onChange(e.currentTarget.value.trim())} />
      </div>
    </td>
  );
}

export function ThemePanel(props: PanelProps): JSX.Element {
  const { doc, edit, check, readOnly } = props;
  const [colorName, setColorName] = useState('');
  const [fontName, setFontName] = useState('');
  const colors = getIn(doc, ['theme', 'colors']);
  const fonts = getIn(doc, ['theme', 'fonts']);
  const colorList = isObject(colors) ? Object.entries(colors) : [];
  const fontList = isObject(fonts) ? Object.entries(fonts) : [];
  const set = (path: (string | number)[], value: Json | undefined) => edit(setIn(doc, ['theme', ...path], value) as JsonObject, `theme:${path.join('/')}`);
  const nameProblem = (name: string, taken: Json | undefined) =>
    name === ''
      ? null
      : !NAME.test(name)
        ? 'A letter, then letters, digits, "_" or "-"'
        : isObject(taken) && Object.hasOwn(taken, name)
          ? 'The theme has this name'
          : null;
  return (
    <section aria-labelledby="theme-title">
      <h2 id="theme-title">Theme</h2>
      <fieldset class="plain" disabled={readOnly !== null}>
        <legend class="visually-hidden">Colours and fonts</legend>
        <div class="table-wrap">
          <table class="table theme-colors">
            <caption>Colours: a colour prop names one as @name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Light</th>
                <th scope="col">Dark</th>
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {colorList.map(([name, color]) => (
                <tr key={name}>
                  <th scope="row">
                    <code>@{name}</code>
                  </th>
                  <ColorCell
                    id={`theme-${name}-light`}
                    label={`${name} in light`}
                    value={getIn(color, ['light'])}
                    onChange={(value) => set(['colors', name, 'light'], value)}
                  />
                  <ColorCell
                    id={`theme-${name}-dark`}
                    label={`${name} in dark`}
                    value={getIn(color, ['dark'])}
                    onChange={(value) => set(['colors', name, 'dark'], value)}
                  />
                  <td class="actions">
                    <button type="button" class="button small danger" onClick={() => set(['colors', name], undefined)}>
                      Remove colour {name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <NewName
          id="new-color"
          label="New colour"
          action="Add colour"
          value={colorName}
          onInput={setColorName}
          problem={nameProblem(colorName, colors)}
          onAdd={() => {
            set(['colors', colorName], { light: '#000000', dark: '#FFFFFF' });
            setColorName('');
          }}
        />
        <h3>Fonts</h3>
        {fontList.map(([name, font]) => (
          <fieldset key={name} class="card font">
            <legend>Font @{name}</legend>
            <div class="fields">
              {(['family', 'url', 'weight'] as const).map((field) => (
                <div class="field" key={field}>
                  <label for={`font-${name}-${field}`}>{field === 'url' ? 'WOFF2 URL' : field === 'family' ? 'Family' : 'Weight'}</label>
                  <input
                    id={`font-${name}-${field}`}
                    type={field === 'weight' ? 'number' : 'text'}
                    value={String(getIn(font, [field]) ?? '')}
                    onInput={(e) => {
                      const text = e.currentTarget.value;
                      set(['fonts', name, field], text === '' && field !== 'family' ? undefined : field === 'weight' ? Number(text) : text);
                    }}
                  />
                </div>
              ))}
              <button type="button" class="button small danger" onClick={() => set(['fonts', name], undefined)}>
                Remove font {name}
              </button>
            </div>
            <FieldProblems id={`font-${name}-problems`} check={check} pointers={[pointerOf(['theme', 'fonts', name])]} />
          </fieldset>
        ))}
        <NewName
          id="new-font"
          label="New font"
          action="Add font"
          value={fontName}
          onInput={setFontName}
          problem={nameProblem(fontName, fonts)}
          onAdd={() => {
            set(['fonts', fontName], { family: 'system-ui' });
            setFontName('');
          }}
        />
        <FieldProblems id="theme-problems" check={check} pointers={['/theme']} />
      </fieldset>
    </section>
  );
}

function NewName(props: {
  id: string;
  label: string;
  action: string;
  value: string;
  problem: string | null;
  onInput: (value: string) => void;
  onAdd: () => void;
}): JSX.Element {
  return (
    <form
      class="row"
      onSubmit={(event) => {
        event.preventDefault();
        if (props.value !== '' && !props.problem) props.onAdd();
      }}
    >
      <div class="field">
        <label for={props.id}>{props.label}</label>
        <input
          id={props.id}
          value={props.value}
          size={14}
          onInput={(e) => props.onInput(e.currentTarget.value.trim())}
          aria-describedby={`${props.id}-problems`}
        />
      </div>
      <button type="submit" class="button small" disabled={props.value === '' || props.problem !== null}>
        {props.action}
      </button>
      <FieldProblems id={`${props.id}-problems`} check={{ state: 'valid', errors: [], warnings: [] }} pointers={[]} note={props.problem} />
    </form>
  );
}
