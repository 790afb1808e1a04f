/**
 * One field of the Properties form, chosen by the prop's kind as the
 * vocabulary describes it (never by node type): a choice for an enum or a
 * slot, a colour with the theme's @tokens, a number or size in its range, a
 * URL or an instant checked as typed, a switch for a boolean, a group of
 * fields for a style. An optional prop left empty is removed.
 */
import type { JSX } from 'preact';
import { FieldProblems, hasError } from './field-problems.tsx';
import { isObject, type Json } from './json.ts';
import type { Check } from './problems.tsx';
import type { PropDescriptor } from './vocabulary.ts';

export interface FieldContext {
  check: Check;
  /** The paywall's slots (the scope's), and whether "selected" may be named. */
  slots: readonly string[];
  /** Theme colours by name (their light value), and theme font names. */
  colors: Readonly<Record<string, string>>;
  fonts: readonly string[];
}

/** "default_slot" → "Default slot", "poster_url" → "Poster URL". */
export function humanize(name: string): string {
  const words = name
    .replace(/_key$/, '')
    .split('_')
    .map((word) => (word === 'url' ? 'URL' : word));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const COLOR = /^(?:#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})|@[A-Za-z][A-Za-z0-9_-]{0,31})$/;

/** What is wrong with a value as typed, before the server is asked (it has the last word, shown beside it too). */
function typedProblem(kind: string, value: string): string | null {
  if (value === '') return null;
  if (kind === 'url') {
    try {
      const url = new URL(value);
      return ['https:', 'http:', 'mailto:', 'data:'].includes(url.protocol) ? null : 'Must start with https://, http://, mailto: or data:image/';
    } catch {
      return 'Not a URL yet: https://example.com/…';
    }
  }
  if (kind === 'instant' && !RFC3339.test(value)) return 'An instant such as 2025-11-28T23:59:59Z';
  if (kind === 'color' && !COLOR.test(value)) return 'A hex colour (#RRGGBB or #RRGGBBAA) or a theme colour such as @brand';
  return null;
}

export function PropField(props: {
  id: string;
  descriptor: PropDescriptor;
  label?: string;
  value: Json | undefined;
  pointer: string;
  context: FieldContext;
  onChange: (value: Json | undefined, field?: string) => void;
}): JSX.Element {
  const { id, descriptor: prop, value, pointer, context, onChange } = props;
  const label = props.label ?? humanize(prop.name);
  const help = `${id}-problems`;
  const invalid = hasError(context.check, [pointer]);
  const text = value === undefined || value === null ? '' : String(value);
  const describe = { 'aria-describedby': help, 'aria-invalid': invalid ? 'true' : 'false' } as const;
  const setText = (typed: string) => onChange(typed === '' && !prop.required ? undefined : typed);

  if (prop.kind === 'style') {
    const style = isObject(value) ? value : {};
    return (
      <fieldset class="prop-group">
        <legend>{label}</legend>
        {(prop.fields ?? []).map((field) => (
          <PropField
            key={field.name}
            id={`${id}-${field.name}`}
            descriptor={field}
            value={style[field.name]}
            pointer={`${pointer}/${field.name}`}
            context={context}
            onChange={(next) => onChange(next, field.name)}
          />
        ))}
        <FieldProblems id={help} check={context.check} pointers={[pointer]} />
      </fieldset>
    );
  }
  if (prop.kind === 'boolean') {
    return (
      <div class="field">
        <label class="check">
          <input
            type="checkbox"
            role="switch"
            checked={value === true}
            aria-checked={value === true ? 'true' : 'false'}
            onChange={(e) => onChange(e.currentTarget.checked)}
            {...describe}
          />{' '}
          {label}
        </label>
        <FieldProblems id={help} check={context.check} pointers={[pointer]} />
      </div>
    );
  }
  let input: JSX.Element;
  if (prop.kind === 'enum' || prop.kind === 'slot' || prop.kind === 'font') {
    const options = prop.kind === 'enum' ? (prop.options ?? []) : prop.kind === 'slot' ? context.slots : context.fonts.map((font) => `@${font}`);
    const known = text === '' || options.includes(text);
    input = (
      <select id={id} value={text} onChange={(e) => setText(e.currentTarget.value)} {...describe}>
        {prop.required && text !== '' ? null : <option value="">{prop.required ? 'Choose…' : '(none)'}</option>}
        {known ? null : <option value={text}>{text}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  } else if (prop.kind === 'number' || prop.kind === 'size') {
    input = (
      <input
        id={id}
        type="number"
        inputMode="decimal"
        min={prop.min}
        max={prop.max}
        step={prop.integer ? 1 : 'any'}
        value={text}
        onInput={(e) => {
          const typed = e.currentTarget.value;
          if (typed === '') onChange(prop.required ? value : undefined);
          else if (Number.isFinite(Number(typed))) onChange(Number(typed));
        }}
        {...describe}
      />
    );
  } else if (prop.kind === 'color') {
    const token = /^@(.+)$/.exec(text)?.[1];
    const hex = (token ? context.colors[token] : text) ?? '';
    input = (
      <div class="row color-field">
        <input id={id} value={text} list="theme-colors" placeholder="#RRGGBB or @token" onInput={(e) => setText(e.currentTarget.value.trim())} {...describe} />
        <input
          type="color"
          aria-label={`${label}: pick a colour`}
          value={/^#[0-9A-Fa-f]{6}/.test(hex) ? hex.slice(0, 7).toLowerCase() : '#000000'}
          onInput={(e) => onChange(e.currentTarget.value.toUpperCase())}
        />
      </div>
    );
  } else {
    input = (
      <input
        id={id}
        value={text}
        inputMode={prop.kind === 'url' ? 'url' : undefined}
        placeholder={prop.kind === 'instant' ? '2025-11-28T23:59:59Z' : prop.kind === 'url' ? 'https://' : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
        {...describe}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {input}
      <FieldProblems id={help} check={context.check} pointers={[pointer]} note={typedProblem(prop.kind, text)} />
    </div>
  );
}
