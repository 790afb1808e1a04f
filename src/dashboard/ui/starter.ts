/**
 * The document a new paywall starts from: a title and subtitle in English
 * and German, a feature list, the products of the catalog in slots (when
 * there are any), a purchase button, restore, terms and privacy, so that a
 * first save is valid and has no warnings but the ones about missing products.
 */
export function starterDocument(name: string, productIds: readonly string[]): Record<string, unknown> {
  const slots: Record<string, string> = {};
  if (productIds[0]) slots.primary = productIds[0];
  if (productIds[1]) slots.secondary = productIds[1];
  const products = Object.keys(slots).map((slot) => ({ type: 'product', props: { slot } }));
  return {
    name,
    default_locale: 'en',
    strings: {
      en: {
        title: 'Go Pro',
        subtitle: 'Everything, unlocked.',
        feature_1: 'No ads',
        feature_2: 'Unlimited projects',
        cta: 'Continue',
        restore: 'Restore purchases',
        terms: 'Terms',
        privacy: 'Privacy',
      },
      de: {
        title: 'Werde Pro',
        subtitle: 'Alles freigeschaltet.',
        feature_1: 'Keine Werbung',
        feature_2: 'Unbegrenzte Projekte',
        cta: 'Weiter',
        restore: 'Käufe wiederherstellen',
        terms: 'AGB',
        privacy: 'Datenschutz',
      },
    },
    slots,
    root: {
      type: 'stack',
      props: { axis: 'vertical', spacing: 12, padding: 24 },
      children: [
        { type: 'button', props: { action: 'close', text: '✕' } },
        { type: 'text', props: { text_key: 'title', style: { font_size: 28, font_weight: 'bold', alignment: 'center' } } },
        { type: 'text', props: { text_key: 'subtitle', style: { alignment: 'center', color: '#555555' } } },
        {
          type: 'stack',
          props: { axis: 'vertical', spacing: 6 },
          children: [
            {
              type: 'stack',
              props: { axis: 'horizontal', spacing: 8 },
              children: [
                { type: 'icon', props: { name: 'check', color: '#16A34A' } },
                { type: 'text', props: { text_key: 'feature_1' } },
              ],
            },
            {
              type: 'stack',
              props: { axis: 'horizontal', spacing: 8 },
              children: [
                { type: 'icon', props: { name: 'check', color: '#16A34A' } },
                { type: 'text', props: { text_key: 'feature_2' } },
              ],
            },
          ],
        },
        ...products,
        ...(slots.primary ? [{ type: 'purchase_button', props: { slot: 'primary', text_key: 'cta' } }] : []),
        { type: 'button', props: { action: 'restore', text_key: 'restore' } },
        {
          type: 'stack',
          props: { axis: 'horizontal', spacing: 16, alignment: 'center' },
          children: [
            { type: 'link', props: { kind: 'terms', text_key: 'terms', url: 'https://example.com/terms' } },
            { type: 'link', props: { kind: 'privacy', text_key: 'privacy', url: 'https://example.com/privacy' } },
          ],
        },
      ],
    },
    variants: [{ id: 'control', weight: 100 }],
  };
}
