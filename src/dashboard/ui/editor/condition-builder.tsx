/**
 * The condition builder: a group (all of, any of) of rules (attribute,
 * operator, value) and groups in it, over the attributes resolve knows and
 * the app's own (`attr.NAME`). What it shows is what the JSON holds
 * (condition-model.ts); a condition it cannot show is kept and shown as
 * JSON, read-only.
 */
import type { JSX } from 'preact';
import {
  ATTRIBUTES,
  CUSTOM_PREFIX,
  fromCondition,
  type Group,
  OPERATORS,
  type Operator,
  type Rule,
  toCondition,
  valueFrom,
  valueText,
} from './condition-model.ts';
import type { Json, JsonObject } from './json.ts';

const CUSTOM = 'custom';

function RuleRow({ id, rule, onChange, onRemove }: { id: string; rule: Rule; onChange: (rule: Rule) => void; onRemove: () => void }): JSX.Element {
  const known = ATTRIBUTES.some((attribute) => attribute.name === rule.attribute);
  const custom = rule.attribute.startsWith(CUSTOM_PREFIX) ? rule.attribute.slice(CUSTOM_PREFIX.length) : null;
  return (
    <li class="rule row">
      <div class="field">
        <label for={`${id}-attribute`}>Attribute</label>
        <select
          id={`${id}-attribute`}
          value={known ? rule.attribute : CUSTOM}
          onChange={(e) => onChange({ ...rule, attribute: e.currentTarget.value === CUSTOM ? `${CUSTOM_PREFIX}${custom ?? ''}` : e.currentTarget.value })}
        >
          {ATTRIBUTES.map((attribute) => (
            <option key={attribute.name} value={attribute.name}>
              {attribute.label}
            </option>
          ))}
          <option value={CUSTOM}>An attribute the app sends…</option>
        </select>
      </div>
      {known ? null : (
        <div class="field">
          <label for={`${id}-custom`}>Attribute name</label>
          <input
            id={`${id}-custom`}
            value={custom ?? rule.attribute}
            size={10}
            onInput={(e) => onChange({ ...rule, attribute: `${CUSTOM_PREFIX}${e.currentTarget.value.trim()}` })}
          />
        </div>
      )}
      <div class="field">
        <label for={`${id}-operator`}>Operator</label>
        <select
          id={`${id}-operator`}
          value={rule.operator}
          onChange={(e) => {
            const operator = e.currentTarget.value as Operator;
            onChange({ ...rule, operator, value: valueFrom(operator, valueText(rule)) });
          }}
        >
          {OPERATORS.map((operator) => (
            <option key={operator.op} value={operator.op}>
              {operator.label}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${id}-value`}>Value</label>
        {rule.operator === '$exists' ? (
          <select id={`${id}-value`} value={String(rule.value)} onChange={(e) => onChange({ ...rule, value: valueFrom('$exists', e.currentTarget.value) })}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : (
          <input
            id={`${id}-value`}
            value={valueText(rule)}
            placeholder={rule.operator === '$in' || rule.operator === '$nin' ? 'DE, AT' : ''}
            onInput={(e) => onChange({ ...rule, value: valueFrom(rule.operator, e.currentTarget.value) })}
          />
        )}
      </div>
      <button type="button" class="button small danger" onClick={onRemove}>
        Remove condition
      </button>
    </li>
  );
}

/** The first attribute no rule of the group tests yet: a new rule on it keeps an all-group one plain object. */
function unused(group: Group): string {
  const taken = new Set(group.items.map((item) => (item.kind === 'rule' ? item.attribute : '')));
  return ATTRIBUTES.find((attribute) => !taken.has(attribute.name))?.name ?? ATTRIBUTES[0].name;
}

function GroupBox({ id, group, onChange, depth }: { id: string; group: Group; onChange: (group: Group) => void; depth: number }): JSX.Element {
  const replace = (index: number, item: Rule | Group | null) =>
    onChange({ ...group, items: item === null ? group.items.filter((_, i) => i !== index) : group.items.map((old, i) => (i === index ? item : old)) });
  return (
    <fieldset class="condition-group">
      <legend class="visually-hidden">{depth === 0 ? 'Condition' : 'Group of conditions'}</legend>
      <div class="field">
        <label for={`${id}-mode`}>Users who match</label>
        <select id={`${id}-mode`} value={group.mode} onChange={(e) => onChange({ ...group, mode: e.currentTarget.value as Group['mode'] })}>
          <option value="all">all of these</option>
          <option value="any">any of these</option>
        </select>
      </div>
      <ul class="rules">
        {group.items.map((item, i) =>
          item.kind === 'rule' ? (
            <RuleRow key={`${id}-${i}`} id={`${id}-${i}`} rule={item} onChange={(rule) => replace(i, rule)} onRemove={() => replace(i, null)} />
          ) : (
            <li key={`${id}-${i}`}>
              <GroupBox id={`${id}-${i}`} group={item} onChange={(inner) => replace(i, inner)} depth={depth + 1} />
              <button type="button" class="button small danger" onClick={() => replace(i, null)}>
                Remove group
              </button>
            </li>
          ),
        )}
      </ul>
      {group.items.length === 0 ? <p class="muted small">No condition: every user matches.</p> : null}
      <div class="row">
        <button
          type="button"
          class="button small"
          onClick={() => onChange({ ...group, items: [...group.items, { kind: 'rule', attribute: unused(group), operator: '', value: '' }] })}
        >
          Add condition
        </button>
        {depth === 0 ? (
          <button
            type="button"
            class="button small"
            onClick={() => onChange({ ...group, items: [...group.items, { kind: 'group', mode: 'any', explicit: false, items: [] }] })}
          >
            Add group
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}

export function ConditionBuilder({
  id,
  condition,
  onChange,
}: {
  id: string;
  condition: Json | undefined;
  onChange: (condition: JsonObject) => void;
}): JSX.Element {
  const group = fromCondition(condition);
  if (!group) {
    return (
      <div class="field">
        <p class="small">This condition uses what the builder cannot show; it is kept as it is. Change it on the JSON tab.</p>
        <pre class="code readonly-condition">{JSON.stringify(condition, null, 2)}</pre>
      </div>
    );
  }
  return <GroupBox id={id} group={group} onChange={(next) => onChange(toCondition(next))} depth={0} />;
}
