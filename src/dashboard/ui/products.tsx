import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Product, ProductList, StoreIds } from '../../products/schema.ts';
import { NotAllowed, useAccess } from './access.tsx';
import { ApiError, call, enc } from './api.ts';
import { Confirm, Problem } from './widgets.tsx';

type StoreKey = keyof StoreIds;

/** Each store's field in the form; the record makes a store added to the schema a type error until it has one. */
const STORE_LABELS: Record<StoreKey, string> = { app_store: 'App Store id', play_store: 'Google Play id', stripe: 'Stripe price id', web: 'Other web id' };
const STORES = Object.entries(STORE_LABELS) as [StoreKey, string][];
interface Draft {
  id: string;
  name: string;
  store_ids: Record<StoreKey, string>;
  /** Editing an existing product (its id is fixed) or creating one. */
  existing: boolean;
}

const blank = (): Draft => ({ id: '', name: '', store_ids: { app_store: '', play_store: '', stripe: '', web: '' }, existing: false });

export function Products({ secret }: { secret: string }): JSX.Element {
  const editable = useAccess().can('edit');
  const [products, setProducts] = useState<Product[] | null>(null);
  const [draft, setDraft] = useState<Draft>(blank);
  const [error, setError] = useState<unknown>(null);
  const [formError, setFormError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<Product | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const refresh = () => call<ProductList>(secret, 'GET', '/api/products').then(({ body }) => setProducts(body.products), setError);
  useEffect(() => {
    refresh();
  }, [secret]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    const store_ids = Object.fromEntries(
      Object.entries(draft.store_ids)
        .filter(([, value]) => value.trim() !== '')
        .map(([k, value]) => [k, value.trim()]),
    );
    try {
      // Creating never replaces a product that exists already (If-None-Match: *).
      await call(secret, 'PUT', `/api/products/${enc(draft.id)}`, {
        body: { name: draft.name, store_ids },
        headers: draft.existing ? {} : { 'if-none-match': '*' },
      });
      setNotice(draft.existing ? `Saved ${draft.id}. Live paywalls that use it serve the change at once.` : `Created ${draft.id}.`);
      setDraft(blank());
      refresh();
    } catch (failure) {
      setFormError(
        failure instanceof ApiError && failure.status === 412
          ? new Error(`A product with the id "${draft.id}" exists already; edit it from the list.`)
          : failure,
      );
    }
  };

  const remove = async (product: Product) => {
    setDeleting(null);
    setError(null);
    try {
      await call(secret, 'DELETE', `/api/products/${enc(product.id)}`);
      setNotice(`Deleted ${product.id}.`);
      refresh();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 409) {
        setError(
          new Error(
            `${product.id} cannot be deleted: ${failure.message}. Apps would otherwise be served a paywall whose slot names a product that no longer exists.`,
          ),
        );
      } else {
        setError(failure);
      }
    }
  };

  return (
    <section aria-labelledby="products-title">
      <div class="page-head">
        <h1 id="products-title">Products</h1>
      </div>
      <p class="muted">The catalog that paywall slots point at, with the id each store knows a product by.</p>
      {notice ? (
        <p class="banner banner-success" role="status">
          {notice}
        </p>
      ) : null}
      <Problem error={error} />
      <NotAllowed permission="edit" what="Changing the catalog" />
      <form class="card" hidden={!editable} onSubmit={submit} aria-labelledby="product-form-title">
        <h2 id="product-form-title">{draft.existing ? `Edit ${draft.id}` : 'New product'}</h2>
        <div class="fields">
          <div class="field">
            <label for="product-id">Id</label>
            <input
              id="product-id"
              required
              value={draft.id}
              readOnly={draft.existing}
              placeholder="pro_annual"
              onInput={(e) => setDraft({ ...draft, id: e.currentTarget.value.trim() })}
            />
          </div>
          <div class="field">
            <label for="product-name">Name</label>
            <input
              id="product-name"
              required
              value={draft.name}
              placeholder="Pro Annual"
              onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
            />
          </div>
          {STORES.map(([key, label]) => (
            <div class="field" key={key}>
              <label for={`product-${key}`}>{label}</label>
              <input
                id={`product-${key}`}
                value={draft.store_ids[key]}
                onInput={(e) => setDraft({ ...draft, store_ids: { ...draft.store_ids, [key]: e.currentTarget.value } })}
              />
            </div>
          ))}
        </div>
        <div class="row">
          <button type="submit" class="button primary">
            {draft.existing ? 'Save product' : 'Create product'}
          </button>
          {draft.existing ? (
            <button type="button" class="button" onClick={() => setDraft(blank())}>
              Cancel
            </button>
          ) : null}
        </div>
        <Problem error={formError} />
      </form>
      {products === null ? (
        <p class="muted">Loading…</p>
      ) : products.length === 0 ? (
        <p class="empty">No products yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col">Store ids</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {products.map((product) => (
                <tr key={product.id}>
                  <td data-label="Product">
                    {product.name}
                    <div class="muted small">
                      <code>{product.id}</code>
                    </div>
                  </td>
                  <td data-label="Store ids" class="small">
                    {STORES.filter(([key]) => product.store_ids[key]).map(([key, label]) => (
                      <div key={key}>
                        {label.replace(/ id$/, '')}: <code>{product.store_ids[key]}</code>
                      </div>
                    ))}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      class="button small"
                      disabled={!editable}
                      onClick={() =>
                        setDraft({
                          id: product.id,
                          name: product.name,
                          existing: true,
                          store_ids: {
                            app_store: product.store_ids.app_store ?? '',
                            play_store: product.store_ids.play_store ?? '',
                            stripe: product.store_ids.stripe ?? '',
                            web: product.store_ids.web ?? '',
                          },
                        })
                      }
                    >
                      Edit<span class="visually-hidden"> {product.id}</span>
                    </button>
                    <button type="button" class="button small danger" disabled={!editable} onClick={() => setDeleting(product)}>
                      Delete<span class="visually-hidden"> {product.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Confirm
        open={deleting !== null}
        title={`Delete ${deleting?.id ?? ''}?`}
        confirmLabel="Delete product"
        danger
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>Paywall drafts that name it will no longer validate. A product in a slot of a live paywall cannot be deleted.</p>
      </Confirm>
    </section>
  );
}
