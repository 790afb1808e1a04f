import type { JSX } from 'preact';
import type { Prices, StorePrice } from '../../../../render/index.ts';
import { type ProductPeriod, productPeriod } from '../product-period.ts';
import { SelectField } from '../widgets.tsx';

/** One product's sample price as the form holds it: text inputs as typed, so that a half-typed amount does not jump. */
export interface SamplePrice {
  priced: boolean;
  amount: string;
  currency: string;
  period: string;
  trial: string;
  introAmount: string;
  introPeriod: string;
  introCycles: string;
}

/** A product of the preview, and the words (its slot, its id) that say how it is billed. */
export interface SampleProduct {
  id: string;
  words: string;
}

/** A store's usual price for each way of billing, with a week's trial on the annual plan. */
const USUAL: Readonly<Record<ProductPeriod, { amount: string; period: string; trial: string }>> = {
  P1Y: { amount: '49.99', period: 'P1Y', trial: 'P7D' },
  P6M: { amount: '29.99', period: 'P6M', trial: '' },
  P3M: { amount: '19.99', period: 'P3M', trial: '' },
  P1M: { amount: '9.99', period: 'P1M', trial: '' },
  P1W: { amount: '2.99', period: 'P1W', trial: '' },
  lifetime: { amount: '149.99', period: '', trial: '' },
};

/** The sample a product starts with: a price that fits how its slot and id say it is billed (an annual product is not $9.99 a month). */
function defaultSample(product: SampleProduct): SamplePrice {
  return { priced: true, currency: 'USD', introAmount: '', introPeriod: 'P1M', introCycles: '3', ...USUAL[productPeriod(product.words)] };
}

const sampleOf = (product: SampleProduct, samples: Readonly<Record<string, SamplePrice>>): SamplePrice =>
  Object.hasOwn(samples, product.id) ? samples[product.id]! : defaultSample(product);

const PERIODS = [
  { value: 'P1W', label: 'Week' },
  { value: 'P1M', label: 'Month' },
  { value: 'P3M', label: '3 months' },
  { value: 'P6M', label: '6 months' },
  { value: 'P1Y', label: 'Year' },
];
const TRIALS = [
  { value: 'P3D', label: '3 days' },
  { value: 'P7D', label: '7 days' },
  { value: 'P14D', label: '14 days' },
  { value: 'P1M', label: '1 month' },
];

/**
 * What the renderer takes: the products' priced samples (the default for
 * those not changed yet), each as a store would report it, every one
 * eligible for its intro offer or none (the preview's switch).
 */
export function samplePrices(products: readonly SampleProduct[], samples: Readonly<Record<string, SamplePrice>>, eligible: boolean): Prices {
  const prices: Record<string, StorePrice> = {};
  for (const product of products) {
    const sample = sampleOf(product, samples);
    const amount = Number(sample.amount);
    if (!sample.priced || sample.amount.trim() === '' || !Number.isFinite(amount)) continue;
    const price: StorePrice = { amount, currency: sample.currency.trim().toUpperCase(), eligible_for_intro: eligible };
    if (sample.period !== '') price.period = sample.period;
    if (sample.trial !== '') price.trial = sample.trial;
    const introAmount = Number(sample.introAmount);
    if (sample.introAmount.trim() !== '' && Number.isFinite(introAmount)) {
      price.intro = { amount: introAmount, period: sample.introPeriod, cycles: Math.max(1, Math.trunc(Number(sample.introCycles) || 1)) };
    }
    prices[product.id] = price;
  }
  return prices;
}

/** The sample store prices of the products a preview shows, which the author changes to see every case: unpriced, not eligible… */
export function SamplePrices(props: {
  products: readonly SampleProduct[];
  samples: Readonly<Record<string, SamplePrice>>;
  onChange: (productId: string, sample: SamplePrice) => void;
}): JSX.Element | null {
  if (props.products.length === 0) return null;
  return (
    <details class="sample-prices">
      <summary>Sample store prices</summary>
      {props.products.map((product, i) => {
        const sample = sampleOf(product, props.samples);
        const set = (change: Partial<SamplePrice>) => props.onChange(product.id, { ...sample, ...change });
        const id = `sample-${i}`;
        return (
          <fieldset key={product.id} class="preview-controls">
            <legend>{product.id}</legend>
            <label class="check">
              <input type="checkbox" checked={sample.priced} onChange={(e) => set({ priced: e.currentTarget.checked })} /> Priced
            </label>
            <div class="field">
              <label for={`${id}-amount`}>Price</label>
              <input id={`${id}-amount`} inputMode="decimal" size={7} value={sample.amount} onInput={(e) => set({ amount: e.currentTarget.value })} />
            </div>
            <div class="field">
              <label for={`${id}-currency`}>Currency</label>
              <input id={`${id}-currency`} size={4} maxLength={3} value={sample.currency} onInput={(e) => set({ currency: e.currentTarget.value })} />
            </div>
            <SelectField
              id={`${id}-period`}
              label="Period"
              value={sample.period}
              onChange={(period) => set({ period })}
              options={PERIODS}
              leading={<option value="">One-time</option>}
            />
            <SelectField
              id={`${id}-trial`}
              label="Trial"
              value={sample.trial}
              onChange={(trial) => set({ trial })}
              options={TRIALS}
              leading={<option value="">None</option>}
            />
            <div class="field">
              <label for={`${id}-intro`}>Intro price</label>
              <input id={`${id}-intro`} inputMode="decimal" size={7} value={sample.introAmount} onInput={(e) => set({ introAmount: e.currentTarget.value })} />
            </div>
            <SelectField
              id={`${id}-intro-period`}
              label="Intro period"
              value={sample.introPeriod}
              onChange={(introPeriod) => set({ introPeriod })}
              options={PERIODS}
            />
            <div class="field">
              <label for={`${id}-intro-cycles`}>Intro cycles</label>
              <input
                id={`${id}-intro-cycles`}
                type="number"
                min={1}
                size={3}
                value={sample.introCycles}
                onInput={(e) => set({ introCycles: e.currentTarget.value })}
              />
            </div>
          </fieldset>
        );
      })}
    </details>
  );
}
