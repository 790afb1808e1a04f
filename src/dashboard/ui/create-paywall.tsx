import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ProductList } from '../../products/schema.ts';
import { ID_PATTERN } from '../../shared/id-pattern.ts';
import type { Template, TemplateList } from '../../templates/schema.ts';
import { ApiError, call, enc } from './api.ts';
import { go, href } from './route.ts';
import { TemplateGallery } from './template-gallery.tsx';
import { matchSlots } from './template-slots.ts';
import { Problem, SelectField } from './widgets.tsx';

/** What a new paywall starts from unless the author picks another: two packages to choose between, so nobody meets a card that looks selected and is not. */
const DEFAULT_TEMPLATE = 'annual-vs-monthly';

/**
 * "New paywall": an id, a name, a template of the gallery (GET
 * /api/templates, each with a live thumbnail) and, for each of its slots, a
 * product of the catalog (matched by id, then by how it is billed). The
 * paywall starts with one variant, `control`, and is created with
 * If-None-Match: *, never over an existing one.
 */
export function CreatePaywall({ secret }: { secret: string }): JSX.Element {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [products, setProducts] = useState<ProductList['products'] | null>(null);
  const [templates, setTemplates] = useState<readonly Template[]>([]);
  const [chosen, setChosen] = useState(DEFAULT_TEMPLATE);
  const [slots, setSlots] = useState<Record<string, string>>({});
  useEffect(() => {
    call<ProductList>(secret, 'GET', '/api/products').then(({ body }) => setProducts(body.products), setError);
    call<TemplateList>(secret, 'GET', '/api/templates').then(({ body }) => setTemplates(body.templates), setError);
  }, [secret]);
  const template = templates.find((candidate) => candidate.id === chosen) ?? templates[0];
  // A new template or catalog: each slot starts from its best match.
  useEffect(() => {
    if (template && products) setSlots(matchSlots(template.document.slots, products));
  }, [template, products]);

  const idProblem = id !== '' && !ID_PATTERN.test(id) ? 'Use 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit.' : null;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!ID_PATTERN.test(id)) return setError(new Error('Choose an id: 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit.'));
    if (!template) return;
    setBusy(true);
    setError(null);
    try {
      // One variant to start from, so that a second one is an edit away.
      const document = { ...template.document, name: name.trim() || id, slots, variants: [{ id: 'control', weight: 100 }] };
      // If-None-Match: * creates only; an existing paywall with this id is never overwritten from here.
      await call(secret, 'PUT', `/api/paywalls/${enc(id)}`, { body: document, headers: { 'if-none-match': '*' } });
      go('paywalls', id);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 412
          ? new Error(`A paywall with the id "${id}" exists already; open it from the list or pick another id.`)
          : failure,
      );
    } finally {
      setBusy(false);
    }
  };
  const options = (products ?? []).map((product) => ({ value: product.id, label: `${product.name} (${product.id})` }));
  return (
    <form class="card create" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">New paywall</h2>
      <div class="fields">
        <div class="field">
          <label for="new-paywall-id">Id (what apps ask for)</label>
          <input
            id="new-paywall-id"
            value={id}
            onInput={(e) => setId(e.currentTarget.value.trim())}
            placeholder="onboarding"
            aria-invalid={idProblem ? 'true' : 'false'}
            aria-describedby="new-paywall-id-help"
          />
          <small id="new-paywall-id-help" class={idProblem ? 'error-text' : 'muted'}>
            {idProblem ?? 'Letters, digits, "_", "." or "-".'}
          </small>
        </div>
        <div class="field">
          <label for="new-paywall-name">Name</label>
          <input id="new-paywall-name" value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Onboarding" />
        </div>
      </div>
      <TemplateGallery secret={secret} templates={templates} products={products} chosen={template?.id ?? ''} onChoose={setChosen} />
      {template ? <p class="muted small">{template.description} In English and German; every text is yours to change.</p> : null}
      <div class="fields">
        {products && products.length > 0
          ? Object.keys(template?.document.slots ?? {}).map((slot) => (
              <SelectField
                key={slot}
                id={`new-paywall-slot-${slot}`}
                label={`Product in slot ${slot}`}
                value={slots[slot] ?? ''}
                onChange={(productId) => setSlots((current) => ({ ...current, [slot]: productId }))}
                options={options}
              />
            ))
          : null}
        <button type="submit" class="button primary" disabled={busy || !template || products === null || products.length === 0}>
          Create from template
        </button>
      </div>
      {products?.length === 0 ? (
        <p class="banner banner-warning" role="status">
          Create a product first: a paywall's purchase button sells a product of the catalog, and the template puts one in each of its slots.{' '}
          <a href={href('products')}>Go to Products</a>
        </p>
      ) : null}
      <Problem error={error} />
    </form>
  );
}
