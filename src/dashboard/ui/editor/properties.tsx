/**
 * Properties: the form of the selected node, generated from the vocabulary
 * (each prop's kind picks its field: prop-field.tsx), so a node type or a
 * prop added to the schemas shows up here with no form code. Texts are
 * edited in the locale shown (text-field.tsx); every node also has its id,
 * `show_if` and `fallback`. The server's errors appear beside the field
 * they point at.
 */
import type { JSX } from 'preact';
import { FieldProblems } from './field-problems.tsx';
import { isObject, type Json, type Path } from './json.ts';
import { setFallback, setNodeValue } from './node-edits.ts';
import { type PanelProps, pointerOf } from './panel.ts';
import { type FieldContext, humanize, PropField } from './prop-field.tsx';
import { rootOf, rootPath, slotsOf } from './scope.ts';
import { TextField } from './text-field.tsx';
import { nodeAt, walkNodes } from './tree.ts';
import { type PropDescriptor, VOCABULARY } from './vocabulary.ts';

/** The literal prop a key prop stands beside (text for text_key, alt for alt_key), when the type has it. */
function literalOf(key: PropDescriptor, props: readonly PropDescriptor[]): string | null {
  const name = key.name.replace(/_key$/, '');
  return props.some((prop) => prop.name === name && prop.kind === 'text') ? name : null;
}

const SHOW_IF = [
  { value: '', label: 'Always' },
  { value: 'true', label: 'Only when eligible for the intro offer' },
  { value: 'false', label: 'Only when not eligible for the intro offer' },
];

export function Properties(props: PanelProps & { path: Path; onSelect: (path: Path) => void }): JSX.Element {
  const { doc, scope, edit, check, readOnly, path, onSelect } = props;
  const root = rootOf(doc, scope);
  const node = nodeAt(root, path);
  const base = rootPath(doc, scope);
  const nodePointer = pointerOf(base, path);
  const descriptor = VOCABULARY.find((entry) => entry.type === node?.type);
  const theme = isObject(doc.theme) ? doc.theme : {};
  const colors: Record<string, string> = {};
  if (isObject(theme.colors)) for (const [name, color] of Object.entries(theme.colors)) if (isObject(color)) colors[name] = String(color.light ?? '');
  const selection = [...walkNodes(root)].some(({ node: each }) => each.type === 'package_group' || each.type === 'toggle');
  const context: FieldContext = {
    check,
    slots: [...Object.keys(slotsOf(doc, scope)), ...(selection ? ['selected'] : [])],
    colors,
    fonts: isObject(theme.fonts) ? Object.keys(theme.fonts) : [],
  };
  const set = (field: Path, value: Json | undefined) => edit(setNodeValue(doc, scope, path, field, value), `value:${nodePointer}/${field.join('/')}`);

  let body: JSX.Element;
  if (!node || !descriptor) {
    body = (
      <p class="muted">{node ? `The editor does not know the type ${String(node.type)}: edit it on the JSON tab.` : 'Select a component in the outline.'}</p>
    );
  } else {
    const nodeProps = isObject(node.props) ? node.props : {};
    const paired = new Set(descriptor.props.flatMap((prop) => (prop.kind === 'text_key' ? [literalOf(prop, descriptor.props)] : [])));
    const showIf = isObject(node.show_if) ? node.show_if : null;
    body = (
      <>
        <p class="muted small">
          <strong>{descriptor.type}</strong>: {descriptor.description}
          {descriptor.needs_fallback ? '. Apps before this type show its fallback.' : ''}
        </p>
        <datalist id="theme-colors">
          {Object.keys(colors).map((name) => (
            <option key={name} value={`@${name}`} />
          ))}
        </datalist>
        {descriptor.props.map((prop) =>
          paired.has(prop.name) ? null : prop.kind === 'text_key' ? (
            <TextField
              key={prop.name}
              {...props}
              id={`prop-${prop.name}`}
              label={prop.name === 'text_key' ? 'Text' : humanize(prop.name)}
              node={node}
              path={path}
              base={base}
              keyProp={prop.name}
              literal={literalOf(prop, descriptor.props)}
            />
          ) : (
            <PropField
              key={prop.name}
              id={`prop-${prop.name}`}
              descriptor={prop}
              value={nodeProps[prop.name]}
              pointer={`${nodePointer}/props/${prop.name}`}
              context={context}
              onChange={(value, field) => set(field ? ['props', prop.name, field] : ['props', prop.name], value)}
            />
          ),
        )}
        <PropField
          id="node-id"
          label="Node id"
          descriptor={{ name: 'id', kind: 'text', required: false }}
          value={node.id}
          pointer={`${nodePointer}/id`}
          context={context}
          onChange={(value) => set(['id'], value)}
        />
        <fieldset class="prop-group">
          <legend>Show if</legend>
          <div class="field">
            <label for="show-if">Shown</label>
            <select
              id="show-if"
              value={showIf ? String(showIf.eligible_for_intro === true) : ''}
              onChange={(e) => {
                const value = e.currentTarget.value;
                set(
                  ['show_if'],
                  value === '' ? undefined : { slot: String(showIf?.slot ?? context.slots[0] ?? 'selected'), eligible_for_intro: value === 'true' },
                );
              }}
            >
              {SHOW_IF.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
          {showIf ? (
            <PropField
              id="show-if-slot"
              label="Offer of slot"
              descriptor={{ name: 'slot', kind: 'slot', required: true }}
              value={showIf.slot}
              pointer={`${nodePointer}/show_if/slot`}
              context={context}
              onChange={(value) => set(['show_if', 'slot'], value)}
            />
          ) : null}
          <FieldProblems id="show-if-problems" check={check} pointers={[`${nodePointer}/show_if`]} />
        </fieldset>
        <Fallback {...props} node={node} nodePointer={nodePointer} onSelect={onSelect} />
      </>
    );
  }
  return (
    <section class="properties" aria-labelledby="properties-title">
      <h2 id="properties-title">Properties</h2>
      <FieldProblems id="node-problems" exact check={check} pointers={node ? [nodePointer, `${nodePointer}/props`, `${nodePointer}/type`] : []} />
      <fieldset class="plain" disabled={readOnly !== null}>
        <legend class="visually-hidden">Properties of the selected component</legend>
        {body}
      </fieldset>
    </section>
  );
}

/** What an app too old for the node shows instead: added as a new node (then selected in the outline like any other), or removed. */
function Fallback(props: PanelProps & { node: NonNullable<ReturnType<typeof nodeAt>>; path: Path; nodePointer: string; onSelect: (path: Path) => void }) {
  const { doc, scope, edit, node, path, onSelect } = props;
  const older = VOCABULARY.filter((entry) => !entry.needs_fallback).map((entry) => entry.type);
  const fallback = isObject(node.fallback) ? node.fallback : null;
  return (
    <fieldset class="prop-group">
      <legend>Fallback</legend>
      {fallback ? (
        <div class="row">
          <span>A {String(fallback.type)}.</span>
          <button type="button" class="button small" onClick={() => onSelect([...path, 'fallback'])}>
            Select the fallback
          </button>
          <button type="button" class="button small danger" onClick={() => edit(setFallback(doc, scope, path, undefined))}>
            Remove the fallback
          </button>
        </div>
      ) : (
        <div class="row">
          <label for="fallback-type">Type</label>
          <select id="fallback-type">
            {older.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="button small"
            onClick={(event) => {
              const type = (event.currentTarget.parentElement?.querySelector('select') as HTMLSelectElement | null)?.value;
              if (type) edit(setFallback(doc, scope, path, type));
            }}
          >
            Add a fallback
          </button>
        </div>
      )}
      <FieldProblems id="fallback-problems" check={props.check} pointers={[`${props.nodePointer}/fallback`]} />
    </fieldset>
  );
}
