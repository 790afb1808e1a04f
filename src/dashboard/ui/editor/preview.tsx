import type { JSX } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { PaywallAction } from '../../../../render/index.ts';
import type { PaywallInput } from '../../../paywalls/document/schema.ts';
import type { PreviewRequest } from '../../../paywalls/draft/schema.ts';
import type { ResolvedPaywall } from '../../../paywalls/resolve/schema.ts';
import type { RevisionDetail } from '../../../paywalls/schema.ts';
import { type ApiError, call, enc } from '../api.ts';
import { SelectField } from '../widgets.tsx';
import { PaywallCanvas } from './paywall-canvas.tsx';
import { type SamplePrice, SamplePrices, type SampleProduct, samplePrices } from './sample-prices.tsx';

/**
 * The server's resolve of the draft (the document as last validated) or of
 * the live revision, for a variant, locale, platform and country the author
 * picks, drawn by dist/render with sample store prices the author sets, in
 * light or dark, for a user the store says is eligible for intro offers or
 * one it says is not. Clicking a node selects it in the editor's outline.
 */
export function Preview(props: {
  secret: string;
  id: string;
  draft: PaywallInput | null;
  liveRevision: number | null;
  /** The variant and locale shown ('' for what a request without them gets): the editor edits texts in this locale. */
  variant: string;
  onVariant: (variant: string) => void;
  locale: string;
  onLocale: (locale: string) => void;
  /** A node of the drawing was clicked: its path below the root (dist/render's data-pw-path). */
  onPick: (path: string) => void;
}): JSX.Element {
  const { variant, locale, onVariant: setVariant, onLocale: setLocale } = props;
  const [source, setSource] = useState<'draft' | 'live'>('draft');
  const [live, setLive] = useState<RevisionDetail['document'] | null>(null);
  const [platform, setPlatform] = useState<NonNullable<PreviewRequest['platform']> | ''>('');
  const [country, setCountry] = useState('');
  const [asOlderApp, setAsOlderApp] = useState(false);
  const [dark, setDark] = useState(false);
  const [eligible, setEligible] = useState(true);
  const [resolved, setResolved] = useState<ResolvedPaywall | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [action, setAction] = useState<string | null>(null);
  const [samples, setSamples] = useState<Record<string, SamplePrice>>({});
  // Each product once, with the words that say how it is billed: the slots it is in, and its id.
  const products = useMemo<SampleProduct[]>(() => {
    const words = new Map<string, string>();
    for (const { slot, product_id } of resolved?.product_slots ?? []) words.set(product_id, `${words.get(product_id) ?? ''} ${slot} ${product_id}`);
    return [...words].map(([id, text]) => ({ id, words: text }));
  }, [resolved]);
  const prices = useMemo(() => samplePrices(products, samples, eligible), [products, samples, eligible]);
  const sequence = useRef(0);

  useEffect(() => {
    if (source !== 'live' || props.liveRevision === null) return;
    call<RevisionDetail>(props.secret, 'GET', `/api/paywalls/${enc(props.id)}/revisions/${props.liveRevision}`).then(
      ({ body }) => setLive(body.document),
      (error: ApiError) => setProblem(error.message),
    );
  }, [source, props.liveRevision, props.id, props.secret]);

  const document: PaywallInput | null = source === 'live' ? live : props.draft;
  const variants = document?.variants?.map((variant) => variant.id) ?? ['default'];
  const locales = Object.keys(document?.strings ?? {});
  const countryValid = country === '' || /^[A-Za-z]{2}$/.test(country);

  useEffect(() => {
    if (!document || !countryValid) return;
    const request: PreviewRequest = { document };
    if (variant !== '' && variants.includes(variant)) request.variant = variant;
    if (locale !== '') request.locale = locale;
    if (platform !== '') request.platform = platform;
    if (country !== '') request.country = country;
    const mine = ++sequence.current;
    call<ResolvedPaywall>(props.secret, 'POST', `/api/paywalls/${enc(props.id)}/preview`, { body: request }).then(
      ({ body }) => {
        if (mine !== sequence.current) return;
        setResolved(body);
        setProblem(null);
      },
      (error: ApiError) => {
        if (mine !== sequence.current) return;
        setProblem(error.status === 422 ? 'The preview shows the last valid version; fix the errors to update it.' : error.message);
      },
    );
  }, [document, variant, locale, platform, country, props.id, props.secret]);

  return (
    <section class="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <div class="preview-controls">
        <div class="field">
          <label for="preview-source">Revision</label>
          <select id="preview-source" value={source} onChange={(e) => setSource(e.currentTarget.value as 'draft' | 'live')}>
            <option value="draft">Editor (draft)</option>
            <option value="live" disabled={props.liveRevision === null}>
              {props.liveRevision === null ? 'Live (nothing published)' : `Live (r${props.liveRevision})`}
            </option>
          </select>
        </div>
        <SelectField
          id="preview-variant"
          label="Variant"
          value={variant}
          onChange={setVariant}
          options={variants.map((id) => ({ value: id, label: id }))}
          leading={<option value="">As served without a user id</option>}
        />
        <SelectField
          id="preview-locale"
          label="Locale"
          value={locale}
          onChange={setLocale}
          options={locales.map((id) => ({ value: id, label: id }))}
          leading={<option value="">Default ({document?.default_locale ?? '—'})</option>}
        />
        <div class="field">
          <label for="preview-platform">Platform</label>
          <select id="preview-platform" value={platform} onChange={(e) => setPlatform(e.currentTarget.value as NonNullable<PreviewRequest['platform']> | '')}>
            <option value="">Any</option>
            <option value="ios">iOS</option>
            <option value="android">Android</option>
            <option value="web">Web</option>
          </select>
        </div>
        <div class="field">
          <label for="preview-country">Country</label>
          <input
            id="preview-country"
            value={country}
            maxLength={2}
            size={4}
            placeholder="US"
            onInput={(e) => setCountry(e.currentTarget.value.trim())}
            aria-invalid={countryValid ? 'false' : 'true'}
            aria-describedby="preview-country-help"
          />
          <small id="preview-country-help" class={countryValid ? 'visually-hidden' : 'error-text'}>
            Two letters, such as US or DE.
          </small>
        </div>
        <label class="check">
          <input type="checkbox" checked={asOlderApp} onChange={(e) => setAsOlderApp(e.currentTarget.checked)} /> Show fallbacks (as an older app)
        </label>
        <label class="check">
          <input type="checkbox" checked={dark} onChange={(e) => setDark(e.currentTarget.checked)} /> Dark mode
        </label>
        <label class="check">
          <input type="checkbox" checked={eligible} onChange={(e) => setEligible(e.currentTarget.checked)} /> Eligible for intro offers
        </label>
      </div>
      {problem ? (
        <p class="banner banner-warning" role="status">
          {problem}
        </p>
      ) : null}
      {resolved ? (
        <>
          <p class="muted small" data-testid="preview-summary">
            Variant <strong>{resolved.variant.id}</strong>
            {resolved.variant.audience ? (
              <>
                {' '}
                for audience <strong>{resolved.variant.audience}</strong>
              </>
            ) : null}
            , locale <strong>{resolved.locale}</strong>
          </p>
          <SamplePrices
            products={products}
            samples={samples}
            onChange={(productId, sample) => setSamples((current) => ({ ...current, [productId]: sample }))}
          />
          <div class="phone" data-testid="preview">
            {resolved.root ? (
              <PaywallCanvas
                resolved={resolved}
                prices={prices}
                asOlderApp={asOlderApp}
                colorScheme={dark ? 'dark' : 'light'}
                onAction={(a) => setAction(describe(a))}
                onPick={props.onPick}
              />
            ) : (
              <p class="holdout">This variant is a holdout: its users see no paywall.</p>
            )}
          </div>
          <p class="muted small" aria-live="polite">
            {action ?? 'Buttons in the preview report what they would ask the app to do.'}
          </p>
        </>
      ) : (
        <p class="muted">{document ? 'Resolving…' : source === 'live' ? 'Loading the live revision…' : 'The preview appears once the document is valid.'}</p>
      )}
    </section>
  );
}

function describe(action: PaywallAction): string {
  switch (action.type) {
    case 'purchase':
      return `Purchase button: the app would buy ${action.product_id ?? 'nothing (empty slot)'} (store id ${action.store_product_id ?? 'none for this platform'}).`;
    case 'link':
      return `The app would open ${action.url}.`;
    case 'custom':
      return `Button: the app would handle its custom action${action.node_id ? ` "${action.node_id}"` : ''}.`;
    case 'select':
      return `Selected ${action.slot}: the purchase button now buys ${action.product_id ?? 'nothing (empty slot)'}.`;
    default:
      return `Button: the app would ${action.type}.`;
  }
}
