/**
 * Products and slots: each slot of the paywall with the catalog's product in
 * it (for the variant chosen, its own choice), the store ids that product
 * has per platform, and the server's warnings about the slot (a product
 * without a store id for a platform the paywall is served to, once the
 * server says so). Slots are added and removed here.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { ProductList } from '../../../products/schema.ts';
import { ID_PATTERN } from '../../../shared/id-pattern.ts';
import { FieldProblems } from './field-problems.tsx';
import { type PanelProps, pointerOf } from './panel.ts';
import { overriddenSlots, setSlot, slotsOf, variantIndex } from './scope.ts';

type Product = ProductList['products'][number];

const PLATFORMS: readonly { label: string; stores: readonly (keyof Product['store_ids'])[] }[] = [
  { label: 'iOS', stores: ['app_store'] },
  { label: 'Android', stores: ['play_store'] },
  { label: 'Web', stores: ['stripe', 'web'] },
];

function StoreIds({ product }: { product: Product | undefined }): JSX.Element {
  if (!product) return <span class="warning-text small">This product is not in the catalog.</span>;
  return (
    <span class="small">
      {PLATFORMS.map(({ label, stores }, i) => {
        const id = stores.map((store) => product.store_ids[store]).find((value) => value !== undefined);
        return (
          <span key={label}>
            {i > 0 ? ' · ' : ''}
            {label}: {id === undefined ? <span class="warning-text">no store id</span> : <code>{id}</code>}
          </span>
        );
      })}
    </span>
  );
}

export function SlotsPanel(props: PanelProps & { products: readonly Product[] | null }): JSX.Element {
  const { doc, scope, edit, check, readOnly, products } = props;
  const [name, setName] = useState('');
  const slots = slotsOf(doc, scope);
  const own = overriddenSlots(doc, scope);
  const index = scope === null ? -1 : variantIndex(doc, scope);
  const options = products ?? [];
  const nameProblem =
    name === '' ? null : !ID_PATTERN.test(name) ? 'Letters, digits, "_", "." or "-"' : Object.hasOwn(slots, name) ? 'The paywall has this slot' : null;
  const add = (event: Event) => {
    event.preventDefault();
    if (name === '' || nameProblem || !options[0]) return;
    edit(setSlot(doc, null, name, options[0].id));
    setName('');
  };
  return (
    <section aria-labelledby="slots-title">
      <h2 id="slots-title">Products and slots</h2>
      <p class="muted small">
        A slot is where the paywall shows a product: packages, product cards and purchase buttons name slots.
        {scope === null ? '' : ` Choices made here are variant ${scope}'s.`}
      </p>
      <fieldset class="plain" disabled={readOnly !== null}>
        <legend class="visually-hidden">Products in the slots</legend>
        <ul class="slot-list">
          {Object.entries(slots).map(([slot, productId]) => {
            const pointers = [pointerOf(['slots', slot]), ...(index >= 0 ? [pointerOf(['variants', index, 'slots', slot])] : [])];
            return (
              <li key={slot} class="card slot">
                <div class="field">
                  <label for={`slot-${slot}`}>Product in slot {slot}</label>
                  <select
                    id={`slot-${slot}`}
                    value={productId}
                    onChange={(e) => edit(setSlot(doc, scope, slot, e.currentTarget.value))}
                    aria-describedby={`slot-${slot}-problems`}
                  >
                    {options.some((product) => product.id === productId) ? null : <option value={productId}>{productId} (not in the catalog)</option>}
                    {options.map((product) => (
                      <option key={product.id} value={product.id}>
                        {product.name} ({product.id})
                      </option>
                    ))}
                  </select>
                </div>
                <StoreIds product={options.find((product) => product.id === productId)} />
                {Object.hasOwn(own, slot) ? <span class="badge badge-variant">changed in variant {scope}</span> : null}
                <FieldProblems id={`slot-${slot}-problems`} check={check} pointers={pointers} />
                {scope === null ? (
                  <button type="button" class="button small danger" onClick={() => edit(setSlot(doc, null, slot, undefined))}>
                    Remove slot {slot}
                  </button>
                ) : null}
              </li>
            );
          })}
        </ul>
        {scope === null ? (
          <form class="row" onSubmit={add}>
            <div class="field">
              <label for="new-slot">New slot</label>
              <input
                id="new-slot"
                value={name}
                placeholder="weekly"
                onInput={(e) => setName(e.currentTarget.value.trim())}
                aria-describedby="new-slot-problems"
              />
            </div>
            <button type="submit" class="button small" disabled={name === '' || nameProblem !== null || options.length === 0}>
              Add slot
            </button>
            <FieldProblems
              id="new-slot-problems"
              check={check}
              pointers={[]}
              note={nameProblem ?? (options.length === 0 ? 'The catalog has no product yet.' : null)}
            />
          </form>
        ) : null}
        <FieldProblems id="slots-problems" check={check} pointers={['/slots']} exact />
      </fieldset>
    </section>
  );
}
