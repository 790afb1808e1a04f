/**
 * The template gallery as the "New paywall" form offers it: one choice per
 * template, named as the gallery names it, with a live thumbnail of it drawn
 * by dist/render from the server's preview of the template with the
 * catalog's products in its slots. Thumbnails are pictures: inert, out of
 * the tab order and of the accessibility tree.
 */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ResolvedPaywall } from '../../paywalls/resolve/schema.ts';
import type { ProductList } from '../../products/schema.ts';
import type { Template } from '../../templates/schema.ts';
import { call } from './api.ts';
import { PaywallCanvas } from './editor/paywall-canvas.tsx';
import { samplePrices } from './editor/sample-prices.tsx';
import { matchSlots } from './template-slots.ts';

/** Any valid paywall id will do: a preview stores nothing. */
const PREVIEW_PATH = '/api/paywalls/template-preview/preview';

function Thumbnail({ secret, template, products }: { secret: string; template: Template; products: ProductList['products'] }): JSX.Element {
  const [resolved, setResolved] = useState<ResolvedPaywall | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const document = { ...template.document, slots: matchSlots(template.document.slots, products) };
    call<ResolvedPaywall>(secret, 'POST', PREVIEW_PATH, { body: { document } }).then(
      ({ body }) => setResolved(body),
      () => setFailed(true),
    );
  }, [secret, template, products]);
  const prices = useMemo(
    () =>
      samplePrices(
        (resolved?.product_slots ?? []).map(({ slot, product_id }) => ({ id: product_id, words: `${slot} ${product_id}` })),
        {},
        true,
      ),
    [resolved],
  );
  return (
    <div class="thumb" aria-hidden="true" inert>
      {resolved?.root ? (
        <PaywallCanvas resolved={resolved} prices={prices} asOlderApp={false} colorScheme="light" onAction={() => {}} />
      ) : (
        <p class="muted">{failed ? 'No thumbnail' : 'Drawing…'}</p>
      )}
    </div>
  );
}

export function TemplateGallery(props: {
  secret: string;
  templates: readonly Template[];
  /** The catalog: thumbnails need products in their slots, so none are drawn without any. */
  products: ProductList['products'] | null;
  chosen: string;
  onChoose: (id: string) => void;
}): JSX.Element {
  const { templates, products, chosen } = props;
  return (
    <fieldset class="gallery">
      <legend>Template</legend>
      {templates.map((template) => (
        <label key={template.id} class="template-card" title={template.description}>
          <input type="radio" name="template" value={template.id} checked={template.id === chosen} onChange={() => props.onChoose(template.id)} />
          {products && products.length > 0 ? <Thumbnail secret={props.secret} template={template} products={products} /> : null}
          <span class="template-name">{template.name}</span>
        </label>
      ))}
    </fieldset>
  );
}
