/**
 * What every paywalld under test serves: two products and one published
 * paywall with two variants, an audience and three locales, shaped like a
 * real onboarding paywall (header image, feature list, two products, legal
 * links), written and published through the management API.
 */
export const PAYWALL_ID = 'onboarding';

const PRODUCTS = {
  pro_annual: { name: 'Pro Annual', store_ids: { app_store: 'com.acme.pro.annual', play_store: 'pro_annual', stripe: 'price_annual' } },
  pro_monthly: { name: 'Pro Monthly', store_ids: { app_store: 'com.acme.pro.monthly', play_store: 'pro_monthly', stripe: 'price_monthly' } },
};

const text = (key, style) => ({ type: 'text', props: { text_key: key, ...(style && { style }) } });
const feature = (key) => ({
  type: 'stack',
  props: { axis: 'horizontal', spacing: 8 },
  children: [{ type: 'icon', props: { name: 'check', size: 16, color: '#22AA55' } }, text(key)],
});

const STRINGS = {
  en: {
    title: 'Go Pro',
    subtitle: 'Everything, everywhere, with no limits.',
    f1: 'Unlimited projects',
    f2: 'Sync across devices',
    f3: 'Priority support',
    cta: 'Start free trial',
    restore: 'Restore purchases',
    terms: 'Terms',
    privacy: 'Privacy',
  },
  de: {
    title: 'Werde Pro',
    subtitle: 'Alles, überall, ohne Grenzen.',
    f1: 'Unbegrenzte Projekte',
    f2: 'Sync auf allen Geräten',
    f3: 'Bevorzugter Support',
    cta: 'Kostenlos testen',
    restore: 'Käufe wiederherstellen',
    terms: 'AGB',
    privacy: 'Datenschutz',
  },
  fr: {
    title: 'Passez à Pro',
    subtitle: 'Tout, partout, sans limites.',
    f1: 'Projets illimités',
    f2: 'Synchronisation sur tous vos appareils',
    f3: 'Support prioritaire',
    cta: "Commencer l'essai gratuit",
    restore: 'Restaurer les achats',
    terms: 'Conditions',
    privacy: 'Confidentialité',
  },
};

export const PAYWALL = {
  name: 'Onboarding',
  default_locale: 'en',
  strings: STRINGS,
  slots: { primary: 'pro_annual', secondary: 'pro_monthly' },
  metadata: { theme: 'light' },
  root: {
    type: 'stack',
    props: { axis: 'vertical', spacing: 12, padding: 24, background: '#FFFFFF' },
    children: [
      { type: 'image', props: { url: 'https://cdn.example.com/paywall/header.png', alt: 'Header', aspect_ratio: 1.78 } },
      text('title', { font_size: 28, font_weight: 'bold', alignment: 'center' }),
      text('subtitle', { font_size: 16, color: '#555555', alignment: 'center' }),
      { type: 'stack', props: { axis: 'vertical', spacing: 6 }, children: [feature('f1'), feature('f2'), feature('f3')] },
      { type: 'product', props: { slot: 'primary' } },
      { type: 'product', props: { slot: 'secondary' } },
      { type: 'purchase_button', props: { slot: 'primary', text_key: 'cta', style: { font_weight: 'semibold' } } },
      { type: 'button', props: { text_key: 'restore', action: 'restore' } },
      {
        type: 'stack',
        props: { axis: 'horizontal', spacing: 16, alignment: 'center' },
        children: [
          { type: 'link', props: { text_key: 'terms', url: 'https://example.com/terms', kind: 'terms' } },
          { type: 'link', props: { text_key: 'privacy', url: 'https://example.com/privacy', kind: 'privacy' } },
        ],
      },
    ],
  },
  variants: [
    { id: 'control', weight: 50 },
    { id: 'annual_first', weight: 50, slots: { primary: 'pro_monthly', secondary: 'pro_annual' }, metadata: { theme: 'dark' } },
  ],
  audiences: [{ id: 'us_ios', when: { country: 'US', platform: 'ios' }, weights: { control: 20, annual_first: 80 } }],
};

async function send(url, key, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text;
}

/** Writes the products and the paywall and publishes it. */
export async function seedFixture(url, secretKey) {
  for (const [id, product] of Object.entries(PRODUCTS)) await send(url, secretKey, 'PUT', `/api/products/${id}`, product);
  await send(url, secretKey, 'PUT', `/api/paywalls/${PAYWALL_ID}`, PAYWALL);
  await send(url, secretKey, 'POST', `/api/paywalls/${PAYWALL_ID}/publish`);
}

/** The sizes of a few typical resolve responses (bytes), for the cached-body baselines. */
export async function resolveBodySize(url, sdkKey) {
  const sizes = [];
  for (const [i, locale] of ['en', 'de-AT', 'fr-FR'].entries()) {
    for (const platform of ['ios', 'android']) {
      const query = new URLSearchParams({ paywallId: PAYWALL_ID, userId: `user-${i}`, locale, platform, country: 'DE' });
      sizes.push(Buffer.byteLength(await send(url, sdkKey, 'GET', `/api/sdk/config?${query}`)));
    }
  }
  sizes.sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)];
}
