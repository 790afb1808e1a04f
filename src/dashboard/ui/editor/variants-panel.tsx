/**
 * Variants: each variant's id, weight (the sum shown, and required to be
 * 100), control and holdout switches, what it overrides, and its removal;
 * "Add variant". A split that differs from the live one says, as the
 * publish question will, that publishing it starts a new experiment phase.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ID_PATTERN } from '../../../shared/id-pattern.ts';
import { FieldProblems, hasError } from './field-problems.tsx';
import { isObject, type JsonObject } from './json.ts';
import { type PanelProps, pointerOf } from './panel.ts';
import { variantsOf } from './scope.ts';
import { addVariant, nextVariantId, removeVariant, renameVariant, setControl, setVariantValue, weightSum } from './split-edits.ts';

/** The sentence a split that differs from the live one gets, here and on the Audiences tab. */
export const NEW_PHASE_NOTE =
  'This split differs from the live one: publishing it starts a new experiment phase. Its results start empty and users are randomized afresh.';

function overrides(variant: JsonObject): string {
  const parts = [
    variant.root === undefined ? null : 'its own tree',
    isObject(variant.strings) ? `texts in ${Object.keys(variant.strings).join(', ')}` : null,
    isObject(variant.slots) ? `slots ${Object.keys(variant.slots).join(', ')}` : null,
  ].filter((part) => part !== null);
  return parts.length === 0 ? 'Shows the paywall as it is.' : `Overrides ${parts.join('; ')}.`;
}

export function VariantsPanel(props: PanelProps & { newPhase: boolean }): JSX.Element {
  const { doc, edit, check, readOnly, newPhase } = props;
  const [typedId, setTypedId] = useState<string | null>(null);
  const variants = Array.isArray(doc.variants) ? variantsOf(doc) : [{ id: 'default', weight: 100 }];
  const sum = weightSum(doc);
  const newId = typedId ?? nextVariantId(doc);
  const ids = variants.map((variant) => String(variant.id));
  const idProblem = !ID_PATTERN.test(newId)
    ? 'Letters, digits, "_", "." or "-", starting with a letter or digit'
    : ids.includes(newId)
      ? 'A variant has this id'
      : null;
  const explicitControl = variants.some((variant) => variant.control === true);
  return (
    <section aria-labelledby="variants-title">
      <h2 id="variants-title">Variants</h2>
      {newPhase ? (
        <p class="banner banner-warning" role="status">
          {NEW_PHASE_NOTE}
        </p>
      ) : null}
      <p class={sum === 100 ? 'muted' : 'error-text'} id="weight-sum" role="status">
        Weights add up to {sum}
        {sum === 100 ? '.' : ': they must add up to 100 before the paywall can be saved.'}
      </p>
      <fieldset class="plain" disabled={readOnly !== null}>
        <legend class="visually-hidden">The split</legend>
        {variants.map((variant, index) => {
          const id = String(variant.id);
          const pointer = pointerOf(['variants', index]);
          return (
            <fieldset key={`${index}`} class="card variant">
              <legend>Variant {id}</legend>
              <div class="fields">
                <div class="field">
                  <label for={`variant-${index}-id`}>Id</label>
                  <input
                    id={`variant-${index}-id`}
                    value={id}
                    size={12}
                    onChange={(e) => {
                      const next = e.currentTarget.value.trim();
                      if (ID_PATTERN.test(next) && !ids.includes(next)) edit(renameVariant(doc, id, next));
                      else e.currentTarget.value = id;
                    }}
                    aria-invalid={hasError(check, [`${pointer}/id`]) ? 'true' : 'false'}
                  />
                </div>
                <div class="field">
                  <label for={`variant-${index}-weight`}>Weight</label>
                  <input
                    id={`variant-${index}-weight`}
                    type="number"
                    min={0}
                    max={100}
                    step={1}
                    size={5}
                    value={String(variant.weight ?? 0)}
                    aria-describedby={`weight-sum variant-${index}-problems`}
                    aria-invalid={sum !== 100 || hasError(check, [`${pointer}/weight`]) ? 'true' : 'false'}
                    onInput={(e) => {
                      const weight = Number(e.currentTarget.value);
                      if (e.currentTarget.value !== '' && Number.isInteger(weight) && weight >= 0)
                        edit(setVariantValue(doc, id, 'weight', weight), `weight:${id}`);
                    }}
                  />
                </div>
                <label class="check">
                  <input
                    type="checkbox"
                    role="switch"
                    checked={variant.control === true}
                    aria-checked={variant.control === true ? 'true' : 'false'}
                    onChange={(e) => edit(setControl(doc, e.currentTarget.checked ? id : null))}
                  />
                  Control
                </label>
                <label class="check">
                  <input
                    type="checkbox"
                    role="switch"
                    checked={variant.holdout === true}
                    aria-checked={variant.holdout === true ? 'true' : 'false'}
                    onChange={(e) => edit(setVariantValue(doc, id, 'holdout', e.currentTarget.checked ? true : undefined))}
                  />
                  Holdout
                </label>
                <button type="button" class="button small danger" disabled={variants.length < 2} onClick={() => edit(removeVariant(doc, id))}>
                  Remove variant {id}
                </button>
              </div>
              <p class="muted small">
                {variant.holdout === true ? 'Its users see no paywall: they measure what the paywall does.' : overrides(variant)}
                {!explicitControl && index === 0 ? ' The control by default: the first listed.' : ''}
              </p>
              <FieldProblems id={`variant-${index}-problems`} check={check} pointers={[pointer]} />
            </fieldset>
          );
        })}
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            if (idProblem) return;
            edit(addVariant(doc, newId));
            setTypedId(null);
          }}
        >
          <div class="field">
            <label for="new-variant">New variant id</label>
            <input id="new-variant" value={newId} size={12} onInput={(e) => setTypedId(e.currentTarget.value.trim())} aria-describedby="new-variant-problems" />
          </div>
          <button type="submit" class="button small" disabled={idProblem !== null}>
            Add variant
          </button>
          <FieldProblems id="new-variant-problems" check={check} pointers={[]} note={idProblem} />
        </form>
        <FieldProblems id="variants-problems" check={check} pointers={['/variants']} exact />
      </fieldset>
    </section>
  );
}
