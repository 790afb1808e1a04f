/**
 * Audiences: in order (the first whose condition matches a user decides),
 * each with its id, its condition (condition-builder.tsx) and the weights
 * its users get per variant (a variant not named gets none). The split note
 * is the Variants tab's.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ID_PATTERN } from '../../../shared/id-pattern.ts';
import { ConditionBuilder } from './condition-builder.tsx';
import { FieldProblems } from './field-problems.tsx';
import { isObject } from './json.ts';
import { type PanelProps, pointerOf } from './panel.ts';
import { variantsOf } from './scope.ts';
import { addAudience, moveAudience, removeAudience, setAudienceValue, setAudienceWeight } from './split-edits.ts';
import { NEW_PHASE_NOTE } from './variants-panel.tsx';

export function AudiencesPanel(props: PanelProps & { newPhase: boolean }): JSX.Element {
  const { doc, edit, check, readOnly, newPhase } = props;
  const [newId, setNewId] = useState('');
  const audiences = Array.isArray(doc.audiences) ? doc.audiences.filter(isObject) : [];
  const variants = variantsOf(doc).map((variant) => String(variant.id));
  const ids = audiences.map((audience) => String(audience.id));
  const idProblem = newId === '' ? null : !ID_PATTERN.test(newId) ? 'Letters, digits, "_", "." or "-"' : ids.includes(newId) ? 'An audience has this id' : null;
  return (
    <section aria-labelledby="audiences-title">
      <h2 id="audiences-title">Audiences</h2>
      {newPhase ? (
        <p class="banner banner-warning" role="status">
          {NEW_PHASE_NOTE}
        </p>
      ) : null}
      <p class="muted small">A user in no audience gets the variants' own weights. The first audience whose condition matches decides.</p>
      <fieldset class="plain" disabled={readOnly !== null}>
        <legend class="visually-hidden">Audiences in order</legend>
        {audiences.map((audience, index) => {
          const id = String(audience.id);
          const weights = isObject(audience.weights) ? audience.weights : {};
          return (
            <fieldset key={`${index}`} class="card audience">
              <legend>Audience {id}</legend>
              <div class="field">
                <label for={`audience-${index}-id`}>Id</label>
                <input
                  id={`audience-${index}-id`}
                  value={id}
                  size={14}
                  onChange={(e) => {
                    const next = e.currentTarget.value.trim();
                    if (ID_PATTERN.test(next) && !ids.includes(next)) edit(setAudienceValue(doc, index, 'id', next));
                    else e.currentTarget.value = id;
                  }}
                />
              </div>
              <ConditionBuilder
                id={`audience-${index}-when`}
                condition={audience.when}
                onChange={(when) => edit(setAudienceValue(doc, index, 'when', when), `when:${index}`)}
              />
              <div class="fields">
                {variants.map((variant) => (
                  <div class="field" key={variant}>
                    <label for={`audience-${index}-weight-${variant}`}>Weight of {variant}</label>
                    <input
                      id={`audience-${index}-weight-${variant}`}
                      type="number"
                      min={0}
                      step={1}
                      size={5}
                      value={typeof weights[variant] === 'number' ? String(weights[variant]) : ''}
                      placeholder="0"
                      onInput={(e) => {
                        const text = e.currentTarget.value;
                        const weight = Number(text);
                        if (text === '') edit(setAudienceWeight(doc, index, variant, undefined), `aweight:${index}:${variant}`);
                        else if (Number.isInteger(weight) && weight >= 0) edit(setAudienceWeight(doc, index, variant, weight), `aweight:${index}:${variant}`);
                      }}
                    />
                  </div>
                ))}
              </div>
              <div class="row">
                <button type="button" class="button small" disabled={index === 0} onClick={() => edit(moveAudience(doc, index, -1))}>
                  Move {id} up
                </button>
                <button type="button" class="button small" disabled={index === audiences.length - 1} onClick={() => edit(moveAudience(doc, index, 1))}>
                  Move {id} down
                </button>
                <button type="button" class="button small danger" onClick={() => edit(removeAudience(doc, index))}>
                  Remove audience {id}
                </button>
              </div>
              <FieldProblems id={`audience-${index}-problems`} check={check} pointers={[pointerOf(['audiences', index])]} />
            </fieldset>
          );
        })}
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            if (newId === '' || idProblem) return;
            edit(addAudience(doc, newId));
            setNewId('');
          }}
        >
          <div class="field">
            <label for="new-audience">New audience id</label>
            <input
              id="new-audience"
              value={newId}
              placeholder="germany"
              size={14}
              onInput={(e) => setNewId(e.currentTarget.value.trim())}
              aria-describedby="new-audience-problems"
            />
          </div>
          <button type="submit" class="button small" disabled={newId === '' || idProblem !== null}>
            Add audience
          </button>
          <FieldProblems id="new-audience-problems" check={check} pointers={[]} note={idProblem} />
        </form>
        <FieldProblems id="audiences-problems" check={check} pointers={['/audiences']} exact />
      </fieldset>
    </section>
  );
}
