import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Stats } from '../../events/schema.ts';
import type { PaywallInfo, PaywallList } from '../../paywalls/schema.ts';
import type { ProductList } from '../../products/schema.ts';
import { ID_PATTERN } from '../../shared/id-pattern.ts';
import { NotAllowed, useAccess } from './access.tsx';
import { ApiError, call, enc } from './api.ts';
import { go, href } from './route.ts';
import { starterDocument } from './starter.ts';
import { ago, Problem, StatusBadge } from './widgets.tsx';

/** The first UTC day of the last seven, today included, as the stats endpoint takes it. */
function sevenDaysAgo(): string {
  return new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
}

export function Paywalls({ secret }: { secret: string }): JSX.Element {
  const { can } = useAccess();
  const [paywalls, setPaywalls] = useState<PaywallInfo[] | null>(null);
  const [impressions, setImpressions] = useState<Record<string, number | null>>({});
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let gone = false;
    const load = async () => {
      const { body } = await call<PaywallList>(secret, 'GET', '/api/paywalls');
      const list = [...body.paywalls].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
      setPaywalls(list);
      // One at a time, in the order shown: the management API is rate limited per key, and a burst
      // of one request per paywall would be refused past a few dozen paywalls.
      for (const paywall of list) {
        if (gone) return;
        try {
          const { body: stats } = await call<Stats>(secret, 'GET', `/api/paywalls/${enc(paywall.id)}/stats?from=${sevenDaysAgo()}`);
          const total = stats.variants.reduce((sum, variant) => sum + (variant.totals.counts.screen_impression ?? 0), 0);
          setImpressions((seen) => ({ ...seen, [paywall.id]: total }));
        } catch {
          setImpressions((seen) => ({ ...seen, [paywall.id]: null }));
        }
      }
    };
    load().catch(setError);
    return () => {
      gone = true;
    };
  }, [secret]);
  return (
    <section aria-labelledby="paywalls-title">
      <div class="page-head">
        <h1 id="paywalls-title">Paywalls</h1>
      </div>
      <Problem error={error} />
      {can('edit') ? <CreatePaywall secret={secret} /> : <NotAllowed permission="edit" what="Creating paywalls" />}
      {paywalls === null ? (
        <p class="muted">Loading…</p>
      ) : paywalls.length === 0 ? (
        <p class="empty">No paywalls yet. Create the first one above: it starts from a template you can edit.</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="visually-hidden">Paywalls, most recently changed first</caption>
            <thead>
              <tr>
                <th scope="col">Paywall</th>
                <th scope="col">Status</th>
                <th scope="col">Live</th>
                <th scope="col">Newest</th>
                <th scope="col">Last change</th>
                <th scope="col" class="number">
                  Impressions, 7 days
                </th>
              </tr>
            </thead>
            <tbody>
              {paywalls.map((paywall) => (
                <tr key={paywall.id}>
                  <td data-label="Paywall">
                    <a href={href('paywalls', paywall.id)}>{paywall.name}</a>
                    <div class="muted small">
                      <code>{paywall.id}</code>
                    </div>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={paywall.status} />
                  </td>
                  <td data-label="Live">{paywall.live_revision === null ? '—' : `r${paywall.live_revision}`}</td>
                  <td data-label="Newest">r{paywall.revision}</td>
                  <td data-label="Last change" title={paywall.updated_at}>
                    {ago(paywall.updated_at)}
                  </td>
                  <td data-label="Impressions, 7 days" class="number">
                    {impressions[paywall.id] === undefined ? '…' : impressions[paywall.id] === null ? 'n/a' : impressions[paywall.id]!.toLocaleString()}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function CreatePaywall({ secret }: { secret: string }): JSX.Element {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  /** How many products the catalog has: with none, the template would have no purchase button. */
  const [products, setProducts] = useState<number | null>(null);
  useEffect(() => {
    call<ProductList>(secret, 'GET', '/api/products').then(({ body }) => setProducts(body.products.length), setError);
  }, [secret]);
  const idProblem = id !== '' && !ID_PATTERN.test(id) ? 'Use 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit.' : null;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!ID_PATTERN.test(id)) return setError(new Error('Choose an id: 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit.'));
    setBusy(true);
    setError(null);
    try {
      const { body } = await call<ProductList>(secret, 'GET', '/api/products');
      const document = starterDocument(
        name.trim() || id,
        body.products.map((product) => product.id),
      );
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
        <button type="submit" class="button primary" disabled={busy || products === 0}>
          Create from template
        </button>
      </div>
      {products === 0 ? (
        <p class="banner banner-warning" role="status">
          Create a product first: a paywall's purchase button sells a product of the catalog, and the template puts the first two in its slots.{' '}
          <a href={href('products')}>Go to Products</a>
        </p>
      ) : null}
      <Problem error={error} />
    </form>
  );
}
